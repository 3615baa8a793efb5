/* A worker's standard streams, kept off the user's (stdio_capture.h). */
#define _GNU_SOURCE /* memfd_create */
#include "stdio_capture.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clean_text.h"

/* Reports shown before the rest are dropped: a kernel that prints on every
 * call of a fuzz campaign must not flood the log. */
#define SL__CAPTURE_REPORTS 8

void sl_capture_open(sl_capture *c) {
  c->reports = 0;
  c->fd = memfd_create("scatterlab-worker-output", MFD_CLOEXEC);
}

void sl_capture_close(sl_capture *c) {
  if (c->fd >= 0) close(c->fd);
  c->fd = -1;
}

int sl_capture_attach(const sl_capture *c) {
  const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  const int out = c->fd >= 0 ? c->fd : null;
  int rc = null < 0 || dup2(null, 0) < 0 || out < 0 || dup2(out, 1) < 0 ||
                   dup2(out, 2) < 0
               ? -1
               : 0;
  /* Appended: fds 1 and 2 share one offset, and the command empties the
   * file under them. */
  if (c->fd >= 0 && fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_APPEND) < 0)
    rc = -1;
  if (null > 2) close(null);
  return rc;
}

size_t sl_capture_take(const sl_capture *c, char *buf, size_t len) {
  buf[0] = '\0';
  if (c->fd < 0) return 0;
  const off_t size = lseek(c->fd, 0, SEEK_END);
  if (size <= 0) return 0;
  const size_t want = (size_t)size < len - 1 ? (size_t)size : len - 1;
  const ssize_t got = pread(c->fd, buf, want, 0);
  const size_t n = got > 0 ? (size_t)got : 0;
  for (size_t i = 0; i < n; ++i)
    if (!buf[i]) buf[i] = ' ';
  buf[n] = '\0';
  if (ftruncate(c->fd, 0) != 0) {
    /* Left as it is: read again, and shown again, at the next take. */
  }
  return (size_t)size;
}

void sl_capture_report(sl_capture *c, FILE *out, const char *who,
                       const char *text, size_t total) {
  if (total == 0 || c->reports > SL__CAPTURE_REPORTS) return;
  if (c->reports++ == SL__CAPTURE_REPORTS) {
    fputs("scatterlab: more output of kernels (their stdout and stderr) not "
          "shown\n",
          out);
    return;
  }
  size_t shown = 0;
  for (const char *p = text; *p;) {
    const size_t n = strcspn(p, "\n");
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)n, p);
    if (n > 0) { /* an empty line says nothing */
      fprintf(out, "scatterlab: %s printed: ", who);
      sl_text_put(out, line);
      fputc('\n', out);
    }
    shown += n + (p[n] == '\n');
    p += n + (p[n] == '\n');
  }
  if (total > shown)
    fprintf(out,
            "scatterlab: %s printed %zu bytes in all; the rest not shown\n",
            who, total);
}
