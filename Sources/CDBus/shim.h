#ifndef SENSORBRIDGE_CDBUS_SHIM_H
#define SENSORBRIDGE_CDBUS_SHIM_H
// libdbus-1 for Swift: the header, plus the type-code macros as constants Swift can import.
#include <dbus/dbus.h>
#include <sys/eventfd.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const int CDBUS_TYPE_INVALID = DBUS_TYPE_INVALID;
static const int CDBUS_TYPE_BYTE = DBUS_TYPE_BYTE;
static const int CDBUS_TYPE_BOOLEAN = DBUS_TYPE_BOOLEAN;
static const int CDBUS_TYPE_INT16 = DBUS_TYPE_INT16;
static const int CDBUS_TYPE_UINT16 = DBUS_TYPE_UINT16;
static const int CDBUS_TYPE_INT32 = DBUS_TYPE_INT32;
static const int CDBUS_TYPE_UINT32 = DBUS_TYPE_UINT32;
static const int CDBUS_TYPE_INT64 = DBUS_TYPE_INT64;
static const int CDBUS_TYPE_UINT64 = DBUS_TYPE_UINT64;
static const int CDBUS_TYPE_DOUBLE = DBUS_TYPE_DOUBLE;
static const int CDBUS_TYPE_STRING = DBUS_TYPE_STRING;
static const int CDBUS_TYPE_OBJECT_PATH = DBUS_TYPE_OBJECT_PATH;
static const int CDBUS_TYPE_SIGNATURE = DBUS_TYPE_SIGNATURE;
static const int CDBUS_TYPE_UNIX_FD = DBUS_TYPE_UNIX_FD;
static const int CDBUS_TYPE_ARRAY = DBUS_TYPE_ARRAY;
static const int CDBUS_TYPE_VARIANT = DBUS_TYPE_VARIANT;
static const int CDBUS_TYPE_STRUCT = DBUS_TYPE_STRUCT;
static const int CDBUS_TYPE_DICT_ENTRY = DBUS_TYPE_DICT_ENTRY;

static const int CDBUS_MESSAGE_TYPE_METHOD_CALL = DBUS_MESSAGE_TYPE_METHOD_CALL;
static const int CDBUS_MESSAGE_TYPE_METHOD_RETURN = DBUS_MESSAGE_TYPE_METHOD_RETURN;
static const int CDBUS_MESSAGE_TYPE_ERROR = DBUS_MESSAGE_TYPE_ERROR;
static const int CDBUS_MESSAGE_TYPE_SIGNAL = DBUS_MESSAGE_TYPE_SIGNAL;

/// A zeroed DBusError ready for use (the corresponding C function is dbus_error_init).
static inline DBusError cdbus_error_make(void) {
    DBusError error;
    dbus_error_init(&error);
    return error;
}
/// A non-blocking, close-on-exec eventfd that wakes a connection's dispatch thread.
static inline int cdbus_wake_fd_make(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

/// The kernel's struct mmsghdr (glibc declares it only under _GNU_SOURCE).
struct cdbus_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};

/// Asks the kernel to stamp each packet `fd` receives with its receive time (SO_TIMESTAMPNS,
/// CLOCK_REALTIME). Returns 0, or -1 with errno.
static inline int cdbus_enable_receive_timestamps(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

/// Reads up to `count` (at most 64) packets waiting on `fd` in one recvmmsg call, without
/// blocking: packet i's bytes go to `buffer + i * size` (cut at `size`), its length to
/// `lengths[i]`, its kernel receive time (CLOCK_REALTIME nanoseconds, 0 when the socket has no
/// timestamps) to `stamps[i]`. Returns how many packets were read, or -1 with errno (EAGAIN: none
/// waits). recvmmsg is called through syscall(2) with the kernel's struct layout.
static inline int cdbus_receive_packets(int fd, unsigned char *buffer, unsigned size, unsigned count,
                                        unsigned *lengths, long long *stamps) {
    struct cdbus_mmsghdr messages[64];
    struct iovec vectors[64];
    union {
        char bytes[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } controls[64];
    if (count > 64) count = 64;
    memset(messages, 0, sizeof messages[0] * count);
    for (unsigned i = 0; i < count; i++) {
        vectors[i].iov_base = buffer + (size_t)i * size;
        vectors[i].iov_len = size;
        messages[i].msg_hdr.msg_iov = &vectors[i];
        messages[i].msg_hdr.msg_iovlen = 1;
        messages[i].msg_hdr.msg_control = controls[i].bytes;
        messages[i].msg_hdr.msg_controllen = sizeof controls[i].bytes;
    }
    int received;
    do {
        received = (int)syscall(SYS_recvmmsg, fd, messages, count, MSG_DONTWAIT, NULL);
    } while (received < 0 && errno == EINTR);
    for (int i = 0; i < received; i++) {
        lengths[i] = messages[i].msg_len < size ? messages[i].msg_len : size;
        stamps[i] = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&messages[i].msg_hdr); c != NULL; c = CMSG_NXTHDR(&messages[i].msg_hdr, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec stamp;
                memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
                stamps[i] = (long long)stamp.tv_sec * 1000000000LL + stamp.tv_nsec;
            }
        }
    }
    return received;
}

/// A close-on-exec SOCK_SEQPACKET pair (one packet, one value, as BlueZ's AcquireNotify sockets):
/// `fds[0]` stays, `fds[1]` is handed to the other process. Returns 0, or -1 with errno.
static inline int cdbus_packet_pair(int fds[2]) {
    return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds);
}

/// Sends one packet on fd without waiting; whether it was sent (not when the other side is not
/// reading, or has closed). The corresponding C function is send.
static inline bool cdbus_send_packet(int fd, const unsigned char *bytes, unsigned long length) {
    ssize_t done;
    do {
        done = send(fd, bytes, length, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (done < 0 && errno == EINTR);
    return done >= 0;
}

/// Sends `count` packets on `fd` in as few sendmmsg calls as it takes (64 at a time), without
/// waiting and without SIGPIPE: packet i is `lengths[i]` bytes at `bytes + offsets[i]`. Returns how
/// many were sent (fewer when the other side stopped reading or closed).
static inline unsigned cdbus_send_packets(int fd, const unsigned char *bytes, const unsigned long *offsets,
                                          const unsigned long *lengths, unsigned count) {
    struct cdbus_mmsghdr messages[64];
    struct iovec vectors[64];
    unsigned sent = 0;
    while (sent < count) {
        unsigned batch = count - sent < 64 ? count - sent : 64;
        memset(messages, 0, sizeof messages[0] * batch);
        for (unsigned i = 0; i < batch; i++) {
            vectors[i].iov_base = (void *)(bytes + offsets[sent + i]);
            vectors[i].iov_len = lengths[sent + i];
            messages[i].msg_hdr.msg_iov = &vectors[i];
            messages[i].msg_hdr.msg_iovlen = 1;
        }
        int done;
        do {
            done = (int)syscall(SYS_sendmmsg, fd, messages, batch, MSG_DONTWAIT | MSG_NOSIGNAL);
        } while (done < 0 && errno == EINTR);
        if (done <= 0) break;
        sent += (unsigned)done;
        if ((unsigned)done < batch) break;
    }
    return sent;
}

/// CLOCK_REALTIME now, in nanoseconds: the clock of the kernel's receive timestamps.
static inline long long cdbus_realtime_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

#endif
