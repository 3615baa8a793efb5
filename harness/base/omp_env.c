/* The OpenMP environment as a line (omp_env.h). */
#include "omp_env.h"

#include <stdio.h>
#include <stdlib.h>

const char *sl_omp_env_line(char *buf, size_t len) {
  const char *bind = getenv("OMP_PROC_BIND");
  const char *wait = getenv("OMP_WAIT_POLICY");
  snprintf(buf, len, "OMP_PROC_BIND=%s, OMP_WAIT_POLICY=%s",
           bind ? bind : "unset", wait ? wait : "unset");
  return buf;
}
