// CBluetooth: the kernel's HCI monitor channel through libbluetooth's headers (Debian
// libbluetooth-dev). Only constants and structures are used; nothing links libbluetooth.
// Each wrapper stands for C that Swift cannot call directly (macros, sockaddr casts, cmsg walking).
#ifndef CBLUETOOTH_SHIM_H
#define CBLUETOOTH_SHIM_H

#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

/// Opens a raw HCI socket: socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI).
/// Returns the descriptor, or -1 with errno (EAFNOSUPPORT when the kernel has no Bluetooth).
static inline int cbluetooth_hci_socket(void) {
    return socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
}

/// Binds `fd` to the monitor channel of every controller (HCI_CHANNEL_MONITOR, HCI_DEV_NONE) and
/// asks for kernel receive timestamps (SO_TIMESTAMP). Returns 0, or -1 with errno (EPERM without
/// CAP_NET_RAW).
static inline int cbluetooth_bind_monitor(int fd) {
    struct sockaddr_hci address;
    memset(&address, 0, sizeof(address));
    address.hci_family = AF_BLUETOOTH;
    address.hci_dev = HCI_DEV_NONE;
    address.hci_channel = HCI_CHANNEL_MONITOR;
    if (bind(fd, (struct sockaddr *)&address, sizeof(address)) < 0) return -1;
    int on = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof(on));
    return 0;
}

/// Waits up to `timeout_ms` for `fd` to be readable. Returns 1 when readable, 0 on timeout or a
/// signal (EINTR), -1 with errno on failure.
static inline int cbluetooth_wait_readable(int fd, int timeout_ms) {
    struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };
    int n = poll(&p, 1, timeout_ms);
    if (n < 0 && errno == EINTR) return 0;
    return n < 0 ? -1 : (n > 0 ? 1 : 0);
}

/// Receives one monitor frame (struct mgmt_hdr: opcode, index, length, little-endian; then the
/// data) into `buffer`. `*seconds` and `*microseconds` get the kernel's receive time (SO_TIMESTAMP),
/// or the current time when the kernel gave none. Returns the byte count, or -1 with errno.
static inline ssize_t cbluetooth_receive_monitor(int fd, void *buffer, size_t size, long long *seconds,
                                                 long long *microseconds) {
    struct iovec io = { .iov_base = buffer, .iov_len = size };
    char control[CMSG_SPACE(sizeof(struct timeval))];
    struct msghdr message;
    memset(&message, 0, sizeof(message));
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    ssize_t received = recvmsg(fd, &message, MSG_DONTWAIT);
    if (received < 0) return -1;
    struct timeval time;
    int stamped = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c != NULL; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMP) {
            memcpy(&time, CMSG_DATA(c), sizeof(time));
            stamped = 1;
        }
    }
    if (!stamped) gettimeofday(&time, NULL);
    *seconds = time.tv_sec;
    *microseconds = time.tv_usec;
    return received;
}

#endif
