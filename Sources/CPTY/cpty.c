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
   terminal or a session host expects, whatever the parent ignores or blocks. */
static void new_session_attributes(posix_spawnattr_t *attr) {
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(attr, &none);
  posix_spawnattr_setsigdefault(attr, &all);
#ifdef POSIX_SPAWN_SETSID
  posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
#else
  posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
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
  rc = posix_spawn(pid, argv[0], &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}
