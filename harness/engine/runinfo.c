/* Machine fingerprint and build facts for the runs table. */
#include "runinfo.h"

#include "sl_report.h"

#include "providers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "sl/sl.h"
#include "sl_git_commit.h" /* generated at build time: git_commit.cmake */
#include "slref.h"
#ifndef SL_COMPILER
#define SL_COMPILER "unknown"
#endif
#ifndef SL_CFLAGS
#define SL_CFLAGS ""
#endif

static void sl__cpu_model(char *buf, size_t len) {
  snprintf(buf, len, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "re");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *p = strchr(line, ':');
    if (!p) continue;
    p += 1 + (p[1] == ' ');
    snprintf(buf, len, "%s", p);
    buf[strcspn(buf, "\n")] = '\0';
    break;
  }
  fclose(f);
}

const char *sl_reference_text(void) {
  static char text[128];
  if (!text[0])
    snprintf(text, sizeof text, "%s (%s)", slref_version(), slref_origin());
  return text;
}

void sl_runinfo_fill(sl_runinfo_buf *b, const char *kind, int argc, char **argv,
                     int threads) {
  memset(b, 0, sizeof *b);
  if (gethostname(b->host, sizeof b->host - 1) != 0)
    snprintf(b->host, sizeof b->host, "unknown");
  sl__cpu_model(b->cpu_model, sizeof b->cpu_model);
  /* "scatterlab" and each argument quoted for the shell, so that pasting
   * the line runs exactly what ran (an argument holding ';' or '$(' does
   * nothing else). A line that does not fit ends with " ..." rather than a
   * cut word. */
  size_t n =
      (size_t)snprintf(b->command_line, sizeof b->command_line, "scatterlab");
  static char word[sizeof b->command_line];
  for (int i = 0; i < argc; ++i) {
    size_t room = sizeof b->command_line - n;
    if (sl_shell_word(argv[i], word, sizeof word) ||
        strlen(word) + 1 + 4 >= room) {
      snprintf(b->command_line + n, room, " ...");
      break;
    }
    n += (size_t)snprintf(b->command_line + n, room, " %s", word);
  }
  b->info.kind = kind;
  b->info.command_line = b->command_line;
  b->info.git_commit = SL_GIT_COMMIT;
  b->info.host = b->host;
  b->info.cpu_model = b->cpu_model;
  b->info.compiler = SL_COMPILER;
  b->info.flags = SL_CFLAGS;
  b->info.version = SL_VERSION_STRING;
  b->info.device = NULL;
  b->info.cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
  b->info.threads = threads > 0 ? threads : sl_default_threads();
  b->info.copy_gbs = 0;
  b->info.core_rtt_ns = 0;
  b->info.reference = sl_reference_text();
  size_t np = sl_provider_count();
  if (np > sizeof b->providers / sizeof b->providers[0])
    np = sizeof b->providers / sizeof b->providers[0];
  for (size_t p = 0; p < np; ++p) {
    const sl_provider_loaded *pl = sl_provider_at(p);
    sl_provider_record *r = &b->providers[p];
    r->name = pl->name;
    r->path = pl->path;
    r->version = pl->version[0] ? pl->version : NULL;
    /* An unreadable library leaves "", which the store refuses, naming
     * the provider: a run must not record a hash it could not take. */
    char err[256];
    r->sha256 = sl_provider_sha256(p, err, sizeof err) ? pl->sha256 : "";
    r->abi = pl->abi;
    r->n_variants = (int)pl->n;
    r->builtin = pl->builtin;
    r->origin = pl->builtin ? "builtin" : pl->from_env ? "env" : "option";
  }
  b->info.providers = np ? b->providers : NULL;
  b->info.n_providers = (int)np;
}

int sl_default_threads(void) {
  const char *env = getenv("OMP_NUM_THREADS");
  if (env) { /* a list "4,2" names the outermost level first */
    char *end;
    long n = strtol(env, &end, 10);
    if (end != env && n > 0 && n <= 4096) return (int)n;
  }
#ifdef _OPENMP
  return omp_get_num_procs();
#else
  return 1;
#endif
}
