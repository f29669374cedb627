// libmicrohttpd (Debian libmicrohttpd-dev) for the HTTP module. MHD_start_daemon,
// MHD_get_daemon_info and MHD_get_connection_info are variadic, which Swift cannot call: these
// wrappers fix their arguments.
#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon listening on `address` with a thread per connection, calling `handler` for each
/// request, `completed` when one ends, `notify` when a connection opens and closes and `unescape`
/// to percent-decode the path and the query (all with `context`), within the given limits. With
/// `tls_key` and `tls_certificate` (PEM text; both or neither) it speaks HTTPS through GnuTLS.
static inline struct MHD_Daemon *cmhd_start(
    unsigned int flags, const struct sockaddr *address, MHD_AccessHandlerCallback handler, void *context,
    MHD_RequestCompletedCallback completed, MHD_NotifyConnectionCallback notify,
    size_t (*unescape)(void *, struct MHD_Connection *, char *), unsigned int connection_limit,
    unsigned int per_ip_limit, size_t memory_limit, unsigned int timeout_seconds, const char *tls_key,
    const char *tls_certificate)
{
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls_key},
        {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_certificate},
        {MHD_OPTION_END, 0, NULL},
    };
    int with_tls = tls_key != NULL && tls_certificate != NULL;
    return MHD_start_daemon(
        flags | (with_tls ? MHD_USE_TLS : 0), 0, NULL, NULL, handler, context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,
        MHD_OPTION_NOTIFY_CONNECTION, notify, context,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, context,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_ARRAY, with_tls ? tls : tls + 2,
        MHD_OPTION_END);
}

/// The port a daemon listens on (the one the system chose for port 0).
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The connection's socket, or -1.
static inline int cmhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The client's address, or NULL.
static inline const struct sockaddr *cmhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// Whether this libmicrohttpd was built with TLS.
static inline int cmhd_has_tls(void) {
    return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}
