/// The lifecycle's tables, in the queue's database next to `ap_pushes` (created by ``SQLOutbox`` on open, so
/// a worker, `serve` and the CLI all find them). Times are UNIX seconds (`REAL`/`DOUBLE PRECISION`).
///
/// - `ap_la_tokens`: tokens the app posted, one row per (push-to-start, device, type) or (update, device,
///   activity) — `key` — so a new token replaces the old; `retired_reason` is set when APNs retired it.
/// - `ap_la_device_secrets`: the SHA-256 of the install secret a deviceID was first registered with
///   (``DeviceSecret``); a device without a row is open.
/// - `ap_la_activities`, `ap_la_devices`: the ``ActivityRecord`` values.
/// - `ap_la_messages`: each push built for an activity (headers and body bytes as the builder made them); held
///   updates point at one.
/// - `ap_la_sends`: each queued push of an activity (its `ap_pushes` id, target, priority, not-before, the
///   budget that held or lowered it) — what the budgets count and `GET /v1/activities/{id}` shows.
/// - `ap_la_events`: the activity's journal (held, released, budget, token retired, ended by the system).
/// - `ap_la_end_requests`: the end request that ended each activity (its fingerprint), so a client's retry of
///   the same end is answered 200 and another end 409 (``ActivityStore/endFingerprint(_:activityID:)``).
/// - `ap_la_channel_claims`: the `"channel": true` start creating an activity's channel right now
///   (``LiveActivityService/claimChannelCreation(activityID:owner:)``), so the channel is created once.
enum ActivityTables {
    static func ddl(_ dialect: SQLDialect) -> String {
        let pk = dialect == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
        let bytes = dialect == .sqlite ? "BLOB" : "BYTEA"
        let real = dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
        let int = dialect == .sqlite ? "INTEGER" : "BIGINT"
        return """
        CREATE TABLE IF NOT EXISTS ap_la_tokens (
          key TEXT PRIMARY KEY,
          kind TEXT NOT NULL,
          device_id TEXT NOT NULL,
          attributes_type TEXT,
          activity_id TEXT,
          token TEXT NOT NULL,
          environment TEXT NOT NULL,
          posted_unix \(real) NOT NULL,
          retired_reason TEXT,
          retired_unix \(real)
        );
        CREATE INDEX IF NOT EXISTS ap_la_tokens_token ON ap_la_tokens (token);
        CREATE INDEX IF NOT EXISTS ap_la_tokens_activity ON ap_la_tokens (activity_id);
        CREATE TABLE IF NOT EXISTS ap_la_device_secrets (
          device_id TEXT PRIMARY KEY,
          secret_sha256 TEXT NOT NULL,
          bound_unix \(real) NOT NULL
        );
        CREATE TABLE IF NOT EXISTS ap_la_activities (
          activity_id TEXT PRIMARY KEY,
          attributes_type TEXT NOT NULL,
          environment TEXT NOT NULL,
          channel_id TEXT,
          state TEXT NOT NULL,
          end_reason TEXT,
          fingerprint TEXT NOT NULL,
          last_timestamp \(int) NOT NULL,
          created_unix \(real) NOT NULL,
          ended_unix \(real),
          updated_unix \(real) NOT NULL
        );
        CREATE INDEX IF NOT EXISTS ap_la_activities_state ON ap_la_activities (state, created_unix);
        CREATE TABLE IF NOT EXISTS ap_la_devices (
          activity_id TEXT NOT NULL,
          device_id TEXT NOT NULL,
          position \(int) NOT NULL,
          state TEXT NOT NULL,
          held_message_id \(int),
          PRIMARY KEY (activity_id, device_id)
        );
        CREATE TABLE IF NOT EXISTS ap_la_messages (
          id \(pk),
          activity_id TEXT NOT NULL,
          event TEXT NOT NULL,
          priority \(int) NOT NULL,
          aps_timestamp \(int) NOT NULL,
          lowered_by TEXT,
          headers TEXT NOT NULL,
          body \(bytes) NOT NULL,
          created_unix \(real) NOT NULL
        );
        CREATE INDEX IF NOT EXISTS ap_la_messages_activity ON ap_la_messages (activity_id, event, priority, created_unix);
        CREATE TABLE IF NOT EXISTS ap_la_sends (
          id \(pk),
          activity_id TEXT NOT NULL,
          device_id TEXT NOT NULL,
          message_id \(int) NOT NULL,
          event TEXT NOT NULL,
          push_id \(int) NOT NULL,
          apns_id TEXT NOT NULL,
          target TEXT NOT NULL,
          priority \(int) NOT NULL,
          not_before_unix \(real) NOT NULL,
          budget TEXT,
          created_unix \(real) NOT NULL
        );
        CREATE INDEX IF NOT EXISTS ap_la_sends_activity ON ap_la_sends (activity_id, id);
        CREATE INDEX IF NOT EXISTS ap_la_sends_target ON ap_la_sends (target, event, not_before_unix);
        CREATE INDEX IF NOT EXISTS ap_la_sends_push ON ap_la_sends (push_id);
        CREATE TABLE IF NOT EXISTS ap_la_events (
          id \(pk),
          activity_id TEXT NOT NULL,
          device_id TEXT,
          at_unix \(real) NOT NULL,
          note TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS ap_la_events_activity ON ap_la_events (activity_id, id);
        CREATE TABLE IF NOT EXISTS ap_la_end_requests (
          activity_id TEXT PRIMARY KEY,
          fingerprint TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS ap_la_channel_claims (
          activity_id TEXT PRIMARY KEY,
          owner TEXT NOT NULL,
          claimed_unix \(real) NOT NULL
        );
        """
    }
}
