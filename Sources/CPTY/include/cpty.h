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

/// Starts `argv[0]` (a path) in a new session, detached from the caller's terminal: stdin
/// from /dev/null, stdout and stderr appended to `log_path`, no other descriptor inherited.
/// Returns 0 and the pid, or an errno value.
int reel_spawn_daemon(char *const argv[], char *const envp[], const char *log_path, pid_t *pid);
#endif
