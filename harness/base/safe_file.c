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

/* What a path holds, for the messages: why it may not be replaced, or
 * NULL when it may (a regular file of this user's). */
static const char *sl__unreplaceable(const struct stat *st, char *why,
                                     size_t len) {
  const mode_t m = st->st_mode;
  if (S_ISREG(m) && st->st_uid == geteuid()) return NULL;
  if (S_ISREG(m))
    snprintf(why, len, "a file of uid %ld (yours: %ld)", (long)st->st_uid,
             (long)geteuid());
  else
    snprintf(why, len, "%s",
             S_ISLNK(m)                 ? "a symbolic link"
             : S_ISDIR(m)               ? "a folder"
             : S_ISCHR(m) || S_ISBLK(m) ? "a device"
             : S_ISFIFO(m)              ? "a pipe"
                                        : "a socket");
  return why;
}

/* Which file a path names: its device and inode, or for a name that does
 * not exist yet (a store the command will create), its folder's and the
 * name itself. -1 when neither can be told. */
typedef struct sl__ident {
  int exists;
  dev_t dev;
  ino_t ino;
  const char *name;
} sl__ident;

static int sl__ident_of(const char *path, sl__ident *id) {
  struct stat st;
  memset(id, 0, sizeof *id);
  if (stat(path, &st) == 0) {
    id->exists = 1, id->dev = st.st_dev, id->ino = st.st_ino;
    return 0;
  }
  char dir[4096];
  const char *slash = strrchr(path, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1,
           slash ? path : ".");
  if (errno != ENOENT || stat(dir[0] ? dir : "/", &st) != 0) return -1;
  id->dev = st.st_dev, id->ino = st.st_ino;
  id->name = slash ? slash + 1 : path;
  return 0;
}

/* Whether path names the file out names; new names only when allowed. */
static int sl__names(const sl__ident *out, const char *path, int new_too) {
  sl__ident id;
  if (sl__ident_of(path, &id) || (!id.exists && !new_too)) return 0;
  return id.exists == out->exists && id.dev == out->dev && id.ino == out->ino &&
         (id.exists || strcmp(id.name, out->name) == 0);
}

/* The store's file or one of the files SQLite keeps beside it. */
static const char *sl__store_file(const sl__ident *out, const char *store,
                                  char *buf, size_t len) {
  static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
  for (size_t k = 0; store && k < sizeof suffix / sizeof *suffix; ++k) {
    snprintf(buf, len, "%s%s", store, suffix[k]);
    if (sl__names(out, buf, 1)) return buf;
  }
  return NULL;
}

/* A file named on the command line (a word, or what follows its '='), but
 * the word that holds path. */
static const char *sl__argv_file(const sl__ident *out, const char *path,
                                 int argc, char **argv) {
  for (int k = 1; k < argc; ++k) {
    const char *w = argv[k], *eq = strchr(w, '=');
    if (path >= w && path <= w + strlen(w)) continue;
    if (sl__names(out, w, 0)) return w;
    if (eq && sl__names(out, eq + 1, 0)) return eq + 1;
  }
  return NULL;
}

int sl_safe_output_check(const char *opt, const char *path, const char *store,
                         int argc, char **argv, char *err, size_t errlen) {
  if (!path || strcmp(path, "-") == 0) return 0;
  struct stat st;
  char why[128], buf[4200];
  if (lstat(path, &st) == 0 && sl__unreplaceable(&st, why, sizeof why)) {
    snprintf(err, errlen,
             "%s %s: expected a new file or a regular file of yours, got %s "
             "(scatterlab neither writes through nor replaces it; name a "
             "file, or - for standard output)",
             opt, path, why);
    return -1;
  }
  sl__ident out;
  if (sl__ident_of(path, &out)) return 0; /* no folder: the write says so */
  const char *same = sl__store_file(&out, store, buf, sizeof buf);
  const char *input = same ? NULL : sl__argv_file(&out, path, argc, argv);
  if (!same && !input) return 0;
  snprintf(err, errlen,
           "%s %s: expected a file other than the command's %s %s, got the "
           "same file",
           opt, path, same ? "store" : "input", same ? same : input);
  return -1;
}

int sl_safe_open_out(sl_safe_file *sf, const char *path, char *err,
                     size_t errlen) {
  if (path && strcmp(path, "-") != 0)
    return sl_safe_open(sf, path, err, errlen);
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
  /* Checked again at the last moment: what appeared at the path since the
   * command started (a link, a device) is not replaced either. */
  struct stat st;
  char why[128];
  const char *refused = !bad && lstat(sf->path, &st) == 0
                            ? sl__unreplaceable(&st, why, sizeof why)
                            : NULL;
  if (!bad && !refused && rename(sf->tmp, sf->path) == 0) return 0;
  if (!bad) e = errno;
  if (refused)
    snprintf(err, errlen,
             "%s: expected a regular file of yours to replace, "
             "got %s; the file was left as it was",
             sf->path, refused);
  else
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
