#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>

/* Typed wrappers around libmicrohttpd's variadic / union APIs, which Swift cannot call directly. */

/* Percent-decodes `value` in place (libmicrohttpd's own rule: each %XX, nothing else), except that a decoded NUL is
   written as 0x7F (DEL): the C string would otherwise end there and `/v1/tokens%00x` route as `/v1/tokens`. The
   console's router refuses a path with any control byte (ConsoleRouter.resolve). Returns the new length. */
static inline int ap_mhd_hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
static inline size_t ap_mhd_unescape(void *cls, struct MHD_Connection *connection, char *value) {
  (void)cls; (void)connection;
  char *read = value, *write = value;
  while (*read) {
    int high = read[0] == '%' ? ap_mhd_hex(read[1]) : -1;
    int low = high >= 0 ? ap_mhd_hex(read[2]) : -1;
    if (low >= 0) {
      int byte = high * 16 + low;
      *write++ = byte == 0 ? (char)0x7F : (char)byte;
      read += 3;
    } else {
      *write++ = *read++;
    }
  }
  *write = 0;
  return (size_t)(write - value);
}

/* Starts a daemon bound to `addr` (struct sockaddr_in or sockaddr_in6, port in network order; port 0 picks a
   free port, see ap_mhd_bound_port) with its own listening thread and one thread per connection, so a handler
   may block (e.g. while a push is sent) without stalling other clients. Returns NULL when it cannot listen. */
/* `per_client_limit` caps the connections from one IP address; `notify` (may be NULL) hears each connection
   start and close (the console's request-head deadline watch). */
static inline struct MHD_Daemon *ap_mhd_start(const struct sockaddr *addr, int ipv6,
                                              unsigned int connection_limit, unsigned int per_client_limit,
                                              unsigned int timeout_seconds,
                                              MHD_AccessHandlerCallback handler, void *handler_cls,
                                              MHD_RequestCompletedCallback completed, void *completed_cls,
                                              MHD_NotifyConnectionCallback notify, void *notify_cls) {
  unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO | MHD_USE_ITC;
  uint16_t port;
  if (ipv6) {
    flags |= MHD_USE_IPv6;
    port = ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
  } else {
    port = ntohs(((const struct sockaddr_in *)addr)->sin_port);
  }
  return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                          MHD_OPTION_SOCK_ADDR, addr,
                          MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                          MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
                          MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                          MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_client_limit,
                          MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                          MHD_OPTION_THREAD_STACK_SIZE, (size_t)(1024 * 1024),
                          MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)256,
                          MHD_OPTION_UNESCAPE_CALLBACK, ap_mhd_unescape, NULL,
                          MHD_OPTION_END);
}

/* The port the daemon listens on (useful after binding port 0); 0 when unknown. */
static inline uint16_t ap_mhd_bound_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info ? info->port : 0;
}

/* The connection's socket, or -1. */
static inline int ap_mhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info ? info->connect_fd : -1;
}

static inline int ap_mhd_notify_started(enum MHD_ConnectionNotificationCode code) {
  return code == MHD_CONNECTION_NOTIFY_STARTED;
}

/* A request header value (case-insensitive name), or NULL. */
static inline const char *ap_mhd_header(struct MHD_Connection *connection, const char *name) {
  return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

/* A query-string argument, or NULL. */
static inline const char *ap_mhd_query(struct MHD_Connection *connection, const char *name) {
  return MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, name);
}

/* Calls `it` for every request header / every query argument. */
static inline int ap_mhd_each_header(struct MHD_Connection *connection, MHD_KeyValueIterator it, void *cls) {
  return MHD_get_connection_values(connection, MHD_HEADER_KIND, it, cls);
}
static inline int ap_mhd_each_query(struct MHD_Connection *connection, MHD_KeyValueIterator it, void *cls) {
  return MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, it, cls);
}

/* Queues a response whose body is copied; returns 1 on success. */
static inline int ap_mhd_respond(struct MHD_Connection *connection, unsigned int status, const void *body, size_t length,
                                 const char *const *header_names, const char *const *header_values, size_t header_count) {
  struct MHD_Response *r = MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
  if (r == NULL) return 0;
  for (size_t i = 0; i < header_count; i++) MHD_add_response_header(r, header_names[i], header_values[i]);
  enum MHD_Result ok = MHD_queue_response(connection, status, r);
  MHD_destroy_response(r);
  return ok == MHD_YES ? 1 : 0;
}

static inline enum MHD_Result ap_mhd_yes(void) { return MHD_YES; }
static inline enum MHD_Result ap_mhd_no(void) { return MHD_NO; }
