/*
 * Files the harness writes, written safely: the bytes go to a new file
 * beside the target (PATH.tmp.<pid>.<n>, created with O_EXCL | O_NOFOLLOW,
 * so neither a planted file nor a symbolic link is ever opened), which is
 * flushed, synced and renamed over PATH only when complete. A reader sees
 * the old file or the whole new one, never a part; an interrupted write
 * leaves PATH as it was. Only a new name or a regular file of this user's
 * is replaced: a symbolic link (/dev/stdout), a device, a folder or
 * someone else's file at PATH is refused, checked when the command starts
 * (sl_safe_output_check) and again before the rename. Errors (ENOSPC,
 * EFBIG under a file-size limit, ...) name the file.
 *
 * And the folders the harness fills (run --save): created if missing,
 * refused when they are a symbolic link, someone else's, or not empty
 * (unless forced).
 */
#ifndef SL_SAFE_FILE_H
#define SL_SAFE_FILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct sl_safe_file {
  FILE *f; /* write here */
  char path[4096], tmp[4200];
} sl_safe_file;

/* Opens the temporary file for path. 0, or -1 with err naming the file. */
int sl_safe_open(sl_safe_file *sf, const char *path, char *err, size_t errlen);

/* Completes the file: flush, fsync, close, rename over the target. On any
 * error (including an earlier failed write on sf->f) the temporary file is
 * removed, the target left as it was, and -1 returned with err naming the
 * target and the reason. */
int sl_safe_commit(sl_safe_file *sf, char *err, size_t errlen);

/* sl_safe_open, or standard output when path is NULL or "-" (commit then only
 * flushes it and reports a write error; abort does nothing): the -o PATH
 * of the report commands. */
int sl_safe_open_out(sl_safe_file *sf, const char *path, char *err,
                     size_t errlen);

/*
 * Whether `path`, the value of output option `opt` ("--junit", "-o"), may
 * be written: a new name, or a regular file of this user's that is not
 * the store (`store`, with its -wal, -shm and -journal; NULL: none) nor
 * any file the command line names (every word of argv, and the part after
 * '=' of --opt=PATH and --provider NAME=PATH, but the word holding path
 * itself). Files are compared by device and inode, names that do not exist
 * yet by their folder's and their own name. "-" (standard output) passes.
 * 0, or -1 with err naming the option, the path, what was
 * expected and what is there.
 */
int sl_safe_output_check(const char *opt, const char *path, const char *store,
                         int argc, char **argv, char *err, size_t errlen);

/* Gives up: closes and removes the temporary file. */
void sl_safe_abort(sl_safe_file *sf);

/* The whole of `text` as the file at path (see above). */
int sl_safe_write_text(const char *path, const char *text, char *err,
                       size_t errlen);

/*
 * A folder for `what` (e.g. "--save") to write into: made (with missing
 * parents) when absent; when present it must be a real directory (not a
 * symbolic link) owned by this user, and empty unless `force`. 0, or -1
 * with err naming the folder, what was expected and what was found.
 */
int sl_safe_dir(const char *dir, int force, const char *what, char *err,
                size_t errlen);

#endif /* SL_SAFE_FILE_H */
