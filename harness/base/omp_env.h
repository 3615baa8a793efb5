/*
 * The OpenMP environment the timings ran under, as one line: the binding
 * and the wait policy change how a parallel variant's team runs (main.c
 * sets them for the commands that time, unless the user did).
 */
#ifndef SL_OMP_ENV_H
#define SL_OMP_ENV_H

#include <stddef.h>

/* "OMP_PROC_BIND=close, OMP_WAIT_POLICY=unset" into buf; returns buf. */
const char *sl_omp_env_line(char *buf, size_t len);

#endif
