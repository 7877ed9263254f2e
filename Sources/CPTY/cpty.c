#define _GNU_SOURCE
#include "cpty.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
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

int reel_peer_pid(int fd, pid_t *pid) {
#if defined(__linux__)
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
  *pid = cred.pid;
  return 0;
#elif defined(LOCAL_PEERPID)
  socklen_t len = sizeof *pid;
  return getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, pid, &len);
#else
  (void)fd;
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

static int unix_address(const char *path, struct sockaddr_un *addr) {
  memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  if (strlen(path) >= sizeof addr->sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  strcpy(addr->sun_path, path);
  return 0;
}

int reel_seqpacket_listen(const char *path) {
  struct sockaddr_un addr;
  if (unix_address(path, &addr) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  if (fd < 0) return -1;
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 16) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int reel_seqpacket_connect(const char *path) {
  struct sockaddr_un addr;
  if (unix_address(path, &addr) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  if (fd < 0) return -1;
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int reel_send_message(int fd, const void *buf, unsigned long len, const int *fds, int nfds) {
  if (nfds < 0 || nfds > 8) {
    errno = EINVAL;
    return -1;
  }
  struct iovec iov = {(void *)buf, len};
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(8 * sizeof(int))];
  } control;
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  memset(&control, 0, sizeof control);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (nfds > 0) {
    msg.msg_control = control.space;
    msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(nfds * sizeof(int));
    memcpy(CMSG_DATA(cmsg), fds, nfds * sizeof(int));
  }
  ssize_t n;
  do {
    n = sendmsg(fd, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return -1;
  if ((unsigned long)n != len) {
    errno = EMSGSIZE;
    return -1;
  }
  return 0;
}

long reel_recv_message(int fd, void *buf, unsigned long cap, int *fds, int maxfds, int *nfds) {
  struct iovec iov = {buf, cap};
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(8 * sizeof(int))];
  } control;
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.space;
  msg.msg_controllen = sizeof control.space;
  *nfds = 0;
  ssize_t n;
  do {
#ifdef MSG_CMSG_CLOEXEC
    n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
#else
    n = recvmsg(fd, &msg, 0);
#endif
  } while (n < 0 && errno == EINTR);
  if (n < 0) return -1;
  int got = 0;
  for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg); cmsg != NULL; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
    if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS) continue;
    int count = (int)((cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    int *data = (int *)CMSG_DATA(cmsg);
    for (int i = 0; i < count; i++) {
      fcntl(data[i], F_SETFD, FD_CLOEXEC);
      if (got < maxfds) {
        fds[got++] = data[i];
      } else {
        close(data[i]);
      }
    }
  }
  if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
    for (int i = 0; i < got; i++) close(fds[i]);
    errno = EMSGSIZE;
    return -1;
  }
  *nfds = got;
  return (long)n;
}

static int sigchld_write_end = -1;

static void sigchld_handler(int sig) {
  (void)sig;
  int saved = errno;
  char one = 1;
  (void)!write(sigchld_write_end, &one, 1);
  errno = saved;
}

int reel_sigchld_pipe(void) {
  int ends[2];
  if (pipe(ends) != 0) return -1;
  for (int i = 0; i < 2; i++) {
    fcntl(ends[i], F_SETFD, FD_CLOEXEC);
    fcntl(ends[i], F_SETFL, fcntl(ends[i], F_GETFL) | O_NONBLOCK);
  }
  sigchld_write_end = ends[1];
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = sigchld_handler;
  action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGCHLD, &action, NULL) != 0) return -1;
  return ends[0];
}

int reel_memory_file(const void *buf, unsigned long len) {
#if defined(__linux__)
  int fd = memfd_create("reel-handover", MFD_CLOEXEC);
#else
  char path[] = "/tmp/reel-handover-XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) {
    unlink(path);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
#endif
  if (fd < 0) return -1;
  const char *p = buf;
  unsigned long left = len;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int saved = errno;
      close(fd);
      errno = saved;
      return -1;
    }
    p += n;
    left -= (unsigned long)n;
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

void reel_store_release_u64(void *p, unsigned long long value) {
  __atomic_store_n((unsigned long long *)p, value, __ATOMIC_RELEASE);
}

unsigned long long reel_load_acquire_u64(const void *p) {
  return __atomic_load_n((const unsigned long long *)p, __ATOMIC_ACQUIRE);
}
