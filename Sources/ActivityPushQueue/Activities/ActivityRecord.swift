import ActivityPushCore

/// One activity as the store holds it: the plain value ``ActivityLifecycle`` reads and returns.
/// Times are UNIX seconds.
package struct ActivityRecord: Sendable, Hashable {
    package var activityID: String
    package var attributesType: String
    package var environment: APNsEnvironment
    /// The broadcast channel its updates and ends go to; nil: to each device's update token.
    package var channelID: String?
    package var state: ActivityState
    /// Why it ended (`end-requested`, ``LiveActivityLimits/expiredReason``); nil while running.
    package var endReason: String?
    /// The start request's canonical text: the same start again is a repeat, another body a conflict.
    package var fingerprint: String
    /// The newest `aps.timestamp` given to a push of this activity (UNIX seconds); each next one is larger.
    package var lastTimestamp: Int64
    package var createdUnixSeconds: Double
    package var endedUnixSeconds: Double?
    /// In the order the start named them.
    package var devices: [ActivityDeviceRecord]

    package init(activityID: String, attributesType: String, environment: APNsEnvironment, channelID: String? = nil,
                 state: ActivityState = .starting, endReason: String? = nil, fingerprint: String, lastTimestamp: Int64 = 0,
                 createdUnixSeconds: Double, endedUnixSeconds: Double? = nil, devices: [ActivityDeviceRecord] = []) {
        self.activityID = activityID
        self.attributesType = attributesType
        self.environment = environment
        self.channelID = channelID
        self.state = state
        self.endReason = endReason
        self.fingerprint = fingerprint
        self.lastTimestamp = lastTimestamp
        self.createdUnixSeconds = createdUnixSeconds
        self.endedUnixSeconds = endedUnixSeconds
        self.devices = devices
    }

    package func device(_ deviceID: String) -> ActivityDeviceRecord? { devices.first { $0.deviceID == deviceID } }
}

/// One device of an activity.
package struct ActivityDeviceRecord: Sendable, Hashable {
    package var deviceID: String
    package var state: ActivityDeviceState
    /// The newest update or end waiting for this device's update token (newest wins), if any.
    package var held: ActivityMessageRef?

    package init(deviceID: String, state: ActivityDeviceState, held: ActivityMessageRef? = nil) {
        self.deviceID = deviceID
        self.state = state
        self.held = held
    }
}

/// A built push of an activity: the one this decision makes (``new``), or one stored before (a held update).
package enum ActivityMessageRef: Sendable, Hashable {
    case new
    case stored(id: Int64, event: LiveActivityEvent)
}
