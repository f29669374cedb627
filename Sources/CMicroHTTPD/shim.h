// libmicrohttpd (Debian libmicrohttpd-dev) for the HTTP module. MHD_start_daemon and
// MHD_get_daemon_info are variadic, which Swift cannot call: these wrappers fix their arguments.
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon listening on `address` with a thread per connection, calling `handler` for each
/// request and `completed` when one ends (both with `context`), within the given limits.
static inline struct MHD_Daemon *cmhd_start(
    unsigned int flags, const struct sockaddr *address, MHD_AccessHandlerCallback handler, void *context,
    MHD_RequestCompletedCallback completed, unsigned int connection_limit, unsigned int per_ip_limit,
    size_t memory_limit, unsigned int timeout_seconds)
{
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_END);
}

/// The port a daemon listens on (the one the system chose for port 0).
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
