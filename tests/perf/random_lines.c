/*
 * The machine's rate of reads at random 64-byte lines of a buffer larger
 * than the last-level cache: the roofline of a random-element op (a gather
 * down the columns of a large x, a scatter-add into random rows of a large
 * out), where each element costs a line and the copy probe's bytes/s do
 * not apply. Each thread draws its addresses from its own generator, so
 * that no load waits for another and the cores keep as many misses in
 * flight as they can, as the best such kernel would. Prints the fastest of
 * REPS rounds in lines/s and the bytes/s those lines carry; the per-op
 * model that uses it is in docs/performance.md ("Where the time goes").
 * A benchmark run by hand, never a test.
 *
 * usage: random_lines [MODE [MIB [THREADS [READS_PER_THREAD [REPS]]]]]
 *   MODE read (the default; a gather's lines) or add (each line read,
 *   incremented and later written back: a scatter-add's); 256 MiB split
 *   among 2 threads, 8388608 lines each, 7 rounds by default.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One argument as a positive integer, or `fallback` when absent; -1 with
 * a message naming it when it is not one. */
static long arg_or(int argc, char **argv, int i, const char *name,
                   long fallback) {
  if (argc <= i) return fallback;
  char *end = NULL;
  long v = strtol(argv[i], &end, 10);
  if (*argv[i] == '\0' || *end != '\0' || v <= 0) {
    fprintf(stderr, "random_lines: %s must be a positive integer, got '%s'\n",
            name, argv[i]);
    return -1;
  }
  return v;
}

/* Generators a thread steps side by side: one xorshift's chain of six
 * dependent operations a read would cap a core below the misses it can
 * keep in flight. */
enum { STREAMS = 4 };

/* One round's work: `threads` threads, each reading (or, with `add`,
 * incrementing) `reads` (a multiple of STREAMS) random lines among the
 * mask + 1 of its own part of buf (a power of two: a mask, not a
 * division, per read; parts, so that no two threads write one word). */
typedef struct job {
  uint64_t *buf;
  uint64_t part_lines, mask;
  long reads;
  int threads, add;
} job;

/* Seconds of one round. The sum of what was read is added to `sink` so
 * that the loads are not dropped. */
static double round_s(const job *j, int round, uint64_t *sink) {
  uint64_t total = 0;
  double t0 = omp_get_wtime();
#pragma omp parallel num_threads(j->threads) reduction(+ : total)
  {
    const int me = omp_get_thread_num();
    uint64_t *part = j->buf + (uint64_t)me * j->part_lines * 8;
    uint64_t s[STREAMS], sum = 0;
    for (int k = 0; k < STREAMS; ++k)
      s[k] = 0x9E3779B97F4A7C15ull * (uint64_t)(me * STREAMS + k + 1) +
             (uint64_t)round;
    for (long i = 0; i < j->reads; i += STREAMS)
      for (int k = 0; k < STREAMS; ++k) {
        s[k] ^= s[k] << 13, s[k] ^= s[k] >> 7, s[k] ^= s[k] << 17;
        uint64_t *w = part + (s[k] >> 20 & j->mask) * 8;
        if (j->add)
          *w += 1;
        else
          sum += *w;
      }
    total += sum;
  }
  double t = omp_get_wtime() - t0;
  *sink += total;
  return t;
}

int main(int argc, char **argv) {
  const int add = argc > 1 && strcmp(argv[1], "add") == 0;
  if (argc > 1 && !add && strcmp(argv[1], "read") != 0) {
    fprintf(stderr, "random_lines: MODE must be read or add, got '%s'\n",
            argv[1]);
    return 2;
  }
  const long mib = arg_or(argc, argv, 2, "MIB", 256);
  const long threads = arg_or(argc, argv, 3, "THREADS", 2);
  long reads = arg_or(argc, argv, 4, "READS_PER_THREAD", 8388608);
  const long reps = arg_or(argc, argv, 5, "REPS", 7);
  if (mib < 0 || threads < 0 || reads < 0 || reps < 0) return 2;
  if (mib > (1L << 24) || threads > 4096) { /* MIB << 20 must not wrap */
    fprintf(stderr,
            "random_lines: MIB at most 16777216 and THREADS at most 4096, "
            "got %ld and %ld\n",
            mib, threads);
    return 2;
  }
  reads = (reads + STREAMS - 1) / STREAMS * STREAMS;
  const size_t bytes = (size_t)mib << 20;
  job j = {.buf = malloc(bytes),
           .reads = reads,
           .threads = (int)threads,
           .add = add};
  if (!j.buf) {
    fprintf(stderr, "random_lines: cannot allocate %ld MiB\n", mib);
    return 1;
  }
  memset(j.buf, 1, bytes); /* fault the pages in before timing */
  j.part_lines = bytes / 64 / (uint64_t)threads;
  uint64_t lines = 1; /* the largest power of two a part holds */
  while (lines * 2 <= j.part_lines) lines *= 2;
  j.mask = lines - 1;
  uint64_t sink = 0;
  double best = 0;
  for (long r = 0; r < reps; ++r) {
    double t = round_s(&j, (int)r, &sink);
    if (best == 0 || t < best) best = t;
  }
  const double rate = (double)reads * (double)threads / best;
  printf("random 64-byte lines (%s), %ld threads over %llu MiB each: %.1f M "
         "lines/s (%.2f GB/s of lines; fastest of %ld rounds of %ld a "
         "thread; sum %llu)\n",
         add ? "read, add, write back" : "read", threads,
         (unsigned long long)(lines >> 14), rate / 1e6, rate * 64 / 1e9, reps,
         reads, (unsigned long long)(sink & 0xff));
  free(j.buf);
  return 0;
}
