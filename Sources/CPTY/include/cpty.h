#ifndef REEL_CPTY_H
#define REEL_CPTY_H
#include <sys/types.h>

/// Opens a pseudo-terminal controller; writes the device path into `name` (size `len`).
/// Returns the controller fd, or -1 with errno set.
int reel_pty_open(char *name, unsigned long len);

/// Spawns `argv[0]` (PATH lookup) as a new session leader whose stdin/stdout/stderr and
/// controlling terminal are the device at `tty_path`, with default signal dispositions. The
/// program inherits no other descriptor (every fd from 3 up is closed in the child, whether or
/// not it is close-on-exec). Returns 0 and the pid, or an errno value.
int reel_pty_spawn(const char *tty_path, char *const argv[], char *const envp[], pid_t *pid);

/// As `reel_pty_spawn`, started in `directory` (NULL: the caller's) where the C library can.
int reel_pty_spawn_in(const char *tty_path, char *const argv[], char *const envp[], const char *directory,
                      pid_t *pid);

/// The uid of the process at the other end of the Unix socket `fd` (SO_PEERCRED on Linux,
/// getpeereid elsewhere). Returns 0, or -1 with errno set.
int reel_peer_uid(int fd, uid_t *uid);

/// The pid of the process at the other end of the Unix socket `fd` (Linux: SO_PEERCRED;
/// elsewhere LOCAL_PEERPID where it exists). Returns 0, or -1 with errno set.
int reel_peer_pid(int fd, pid_t *pid);

/// Starts `argv[0]` (a path) in a new session, detached from the caller's terminal: stdin
/// from /dev/null, stdout and stderr appended to `log_path`, no other descriptor inherited.
/// Returns 0 and the pid, or an errno value.
int reel_spawn_daemon(char *const argv[], char *const envp[], const char *log_path, pid_t *pid);

/// A listening SOCK_SEQPACKET Unix socket at `path` (close-on-exec, mode of the directory).
/// Returns the fd, or -1 with errno set.
int reel_seqpacket_listen(const char *path);

/// Connects a SOCK_SEQPACKET Unix socket to `path` (close-on-exec). Returns the fd, or -1.
int reel_seqpacket_connect(const char *path);

/// Sends one message of `len` bytes with `nfds` descriptors (SCM_RIGHTS, at most 8).
/// Returns 0, or -1 with errno set.
int reel_send_message(int fd, const void *buf, unsigned long len, const int *fds, int nfds);

/// Receives one message into `buf` (capacity `cap`) and up to `maxfds` (at most 8)
/// descriptors into `fds` (close-on-exec; their count in `*nfds`). Returns the message's
/// length (0: the peer closed), or -1 with errno set. A truncated message fails with EMSGSIZE
/// (its descriptors closed).
long reel_recv_message(int fd, void *buf, unsigned long cap, int *fds, int maxfds, int *nfds);

/// Installs a SIGCHLD handler that writes a byte to a non-blocking pipe; returns its read end
/// (close-on-exec), or -1. Call once.
int reel_sigchld_pipe(void);

/// A memory file (memfd on Linux, an unlinked temporary file elsewhere) holding `len` bytes
/// of `buf`, positioned at its start; close-on-exec. Returns the fd, or -1 with errno set.
int reel_memory_file(const void *buf, unsigned long len);

/// Stores `value` at `p` (8-byte aligned) with release ordering: every store before it is
/// visible to whoever loads it (another process sharing the memory, after this one died).
void reel_store_release_u64(void *p, unsigned long long value);

/// Loads the 8-byte value at `p` with acquire ordering.
unsigned long long reel_load_acquire_u64(const void *p);
#endif
