/* Safe file and folder creation (see safe_file.h). */
#include "safe_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sl_safe_open(sl_safe_file *sf, const char *path, char *err, size_t errlen) {
  static unsigned serial; /* several temporary files of one process */
  memset(sf, 0, sizeof *sf);
  if (!path || !*path) {
    snprintf(err, errlen, "output path: expected a file name, got nothing");
    return -1;
  }
  if (strlen(path) >= sizeof sf->path) {
    snprintf(err, errlen,
             "%.64s...: expected a path of at most %zu bytes, got %zu", path,
             sizeof sf->path - 1, strlen(path));
    return -1;
  }
  snprintf(sf->path, sizeof sf->path, "%s", path);
  snprintf(sf->tmp, sizeof sf->tmp, "%s.tmp.%ld.%u", path, (long)getpid(),
           serial++);
  int fd =
      open(sf->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(err, errlen, "%s: cannot create (%s)", sf->tmp, strerror(errno));
    return -1;
  }
  sf->f = fdopen(fd, "w");
  if (!sf->f) {
    snprintf(err, errlen, "%s: cannot open (%s)", sf->tmp, strerror(errno));
    close(fd);
    unlink(sf->tmp);
    return -1;
  }
  return 0;
}

int sl_safe_open_out(sl_safe_file *sf, const char *path, char *err,
                     size_t errlen) {
  if (path) return sl_safe_open(sf, path, err, errlen);
  memset(sf, 0, sizeof *sf);
  sf->f = stdout;
  return 0;
}

int sl_safe_commit(sl_safe_file *sf, char *err, size_t errlen) {
  if (sf->f == stdout && !sf->path[0]) {
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    snprintf(err, errlen, "standard output: write error (%s)", strerror(errno));
    return -1;
  }
  if (!sf->f) {
    snprintf(err, errlen, "%s: not open", sf->path);
    return -1;
  }
  errno = 0;
  int bad = ferror(sf->f) || fflush(sf->f) != 0 || fsync(fileno(sf->f)) != 0;
  int e = errno;
  if (fclose(sf->f) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  sf->f = NULL;
  if (!bad && rename(sf->tmp, sf->path) == 0) return 0;
  if (!bad) e = errno;
  snprintf(err, errlen, "%s: %s (%s); the file was left as it was", sf->path,
           bad ? "write error" : "cannot rename into place",
           e ? strerror(e) : "I/O error");
  unlink(sf->tmp);
  return -1;
}

void sl_safe_abort(sl_safe_file *sf) {
  if (sf->f == stdout && !sf->path[0]) return;
  if (sf->f) fclose(sf->f);
  sf->f = NULL;
  if (sf->tmp[0]) unlink(sf->tmp);
}

int sl_safe_write_text(const char *path, const char *text, char *err,
                       size_t errlen) {
  sl_safe_file sf;
  if (sl_safe_open(&sf, path, err, errlen)) return -1;
  fputs(text, sf.f);
  return sl_safe_commit(&sf, err, errlen);
}

static int sl__dir_empty(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  int empty = 1;
  while (empty && (e = readdir(d)))
    empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
  closedir(d);
  return empty;
}

int sl_safe_dir(const char *dir, int force, const char *what, char *err,
                size_t errlen) {
  char path[4096];
  if (!dir || !*dir || strlen(dir) >= sizeof path) {
    snprintf(err, errlen,
             "%s: expected a folder name of 1 to %zu bytes, got %zu", what,
             sizeof path - 1, dir ? strlen(dir) : 0);
    return -1;
  }
  /* Missing parents first (mkdir -p). */
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; ++p)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s %s: cannot create folder %s (%s)", what, dir,
                 path, strerror(errno));
        return -1;
      }
      *p = '/';
    }
  if (mkdir(dir, 0777) == 0) return 0;
  if (errno != EEXIST) {
    snprintf(err, errlen, "%s %s: cannot create folder (%s)", what, dir,
             strerror(errno));
    return -1;
  }
  struct stat st;
  if (lstat(dir, &st) != 0) {
    snprintf(err, errlen, "%s %s: cannot inspect (%s)", what, dir,
             strerror(errno));
    return -1;
  }
  if (S_ISLNK(st.st_mode)) {
    snprintf(err, errlen,
             "%s %s: expected a folder, got a symbolic link (give the "
             "folder it points to)",
             what, dir);
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "%s %s: expected a folder, got another kind of file",
             what, dir);
    return -1;
  }
  if (st.st_uid != geteuid()) {
    snprintf(err, errlen,
             "%s %s: expected a folder of yours (uid %ld), got one of uid %ld",
             what, dir, (long)geteuid(), (long)st.st_uid);
    return -1;
  }
  if (!force && !sl__dir_empty(dir)) {
    snprintf(err, errlen,
             "%s %s: expected a new or empty folder, got one with files in "
             "it (--force writes into it, replacing files of the same names)",
             what, dir);
    return -1;
  }
  return 0;
}
