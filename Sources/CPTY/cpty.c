#define _GNU_SOURCE
#include "cpty.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int reel_pty_open(char *name, unsigned long len) {
  int fd = posix_openpt(O_RDWR | O_NOCTTY);
  if (fd < 0) return -1;
  if (grantpt(fd) != 0 || unlockpt(fd) != 0 || ptsname_r(fd, name, len) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  return fd;
}

/* A new session with an empty signal mask and default dispositions: what a program started by a
   terminal or a session host expects, whatever the parent ignores or blocks. On Apple systems
   every descriptor the file actions do not name is closed (POSIX_SPAWN_CLOEXEC_DEFAULT). */
static void new_session_attributes(posix_spawnattr_t *attr) {
  sigset_t none, all;
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(attr, &none);
  posix_spawnattr_setsigdefault(attr, &all);
#ifdef POSIX_SPAWN_SETSID
  flags |= POSIX_SPAWN_SETSID;
#endif
#ifdef POSIX_SPAWN_CLOEXEC_DEFAULT
  flags |= POSIX_SPAWN_CLOEXEC_DEFAULT;
#endif
  posix_spawnattr_setflags(attr, flags);
}

/* The child keeps descriptors 0-2 and nothing else: a program in a session must never hold a
   listening socket, another client's connection, an event loop's epoll or a recording of
   reel's, whether or not whoever opened it asked for close-on-exec. glibc 2.34+ closes them
   as a file action; Apple systems by POSIX_SPAWN_CLOEXEC_DEFAULT (above). Returns 0, or -1
   where neither exists (the spawn is then refused rather than leak). */
static int close_inherited_descriptors(posix_spawn_file_actions_t *actions) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  return posix_spawn_file_actions_addclosefrom_np(actions, 3) == 0 ? 0 : -1;
#elif defined(POSIX_SPAWN_CLOEXEC_DEFAULT)
  (void)actions;
  return 0;
#else
  (void)actions;
  return -1;
#endif
}

int reel_pty_spawn(const char *tty_path, char *const argv[], char *const envp[], pid_t *pid) {
  return reel_pty_spawn_in(tty_path, argv, envp, NULL, pid);
}

int reel_pty_spawn_in(const char *tty_path, char *const argv[], char *const envp[], const char *directory,
                      pid_t *pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  int rc;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  /* After setsid, the first terminal a session leader opens becomes its controlling tty. */
  posix_spawn_file_actions_addopen(&actions, 0, tty_path, O_RDWR, 0);
  posix_spawn_file_actions_adddup2(&actions, 0, 1);
  posix_spawn_file_actions_adddup2(&actions, 0, 2);
#if defined(__GLIBC__)
  if (directory != NULL) posix_spawn_file_actions_addchdir_np(&actions, directory);
#else
  (void)directory;
#endif
  new_session_attributes(&attr);
  if (close_inherited_descriptors(&actions) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return ENOSYS;
  }
  rc = posix_spawnp(pid, argv[0], &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}

int reel_peer_uid(int fd, uid_t *uid) {
#if defined(__linux__)
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
  *uid = cred.uid;
  return 0;
#else
  gid_t gid;
  return getpeereid(fd, uid, &gid);
#endif
}

int reel_spawn_daemon(char *const argv[], char *const envp[], const char *log_path, pid_t *pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  int rc;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  new_session_attributes(&attr);
  if (close_inherited_descriptors(&actions) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return ENOSYS;
  }
  rc = posix_spawn(pid, argv[0], &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}
