/*
 * What the index check's second pass costs a gather, and what an undo
 * copy of out would cost instead (docs/performance.md, "Where the contract
 * costs"). A checking variant promises that nothing is written when an
 * index value is bad, so it reads a large i64 index twice: a check, then
 * the walk. Checking each tile of positions just before walking it reads
 * the index once (the tile is still in the cache), and keeps the promise
 * if out's tile is copied aside first and every walked tile copied back
 * when a later value is bad. This program times the three on a gather i8
 * of x=81x84x81x81 through a contiguous i64 index [81,68,63,53] along
 * dim 2, on the OpenMP team: two passes, the tiles with an undo copy (in
 * a buffer kept across calls, and in a fresh one each call), and the walk
 * alone (what LibTorch pays), best of `reps`; then plants a bad value
 * near the end and checks that out comes back unchanged.
 *
 *   build/tests/gather_undo [reps]
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { A = 81, B = 68, C = 63, D = 53, XB = 84, XC = 81, XD = 81 };
#define TILE ((int64_t)C * D) /* positions of one (a, b): a tile */
#define TILES (A * B)

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Whether a tile holds a value outside [0, XC): no early exit, so that
 * the compiler vectorizes it as the core's check does. */
static int tile_bad(const int64_t *index) {
  uint64_t bad = 0;
  for (int64_t i = 0; i < TILE; ++i) bad |= (uint64_t)index[i] >= XC;
  return bad != 0;
}

static void walk_tile(const int8_t *x, const int64_t *index, int8_t *out,
                      int t) {
  const int8_t *plane = x + ((int64_t)(t / B) * XB + t % B) * XC * XD;
  for (int c = 0; c < C; ++c)
    for (int d = 0; d < D; ++d)
      out[c * D + d] = plane[index[c * D + d] * XD + d];
}

static void walk_all(const int8_t *x, const int64_t *index, int8_t *out) {
#pragma omp parallel for schedule(static)
  for (int t = 0; t < TILES; ++t)
    walk_tile(x, index + t * TILE, out + t * TILE, t);
}

static int two_passes(const int8_t *x, const int64_t *index, int8_t *out) {
  int bad = 0;
#pragma omp parallel for reduction(| : bad) schedule(static)
  for (int t = 0; t < TILES; ++t) bad |= tile_bad(index + t * TILE);
  if (!bad) walk_all(x, index, out);
  return bad;
}

/* Tiles checked, copied aside and walked; walked[t] marks what to copy
 * back when any thread meets a bad value. */
static int tiles_with_undo(const int8_t *x, const int64_t *index, int8_t *out,
                           int8_t *saved, char *walked) {
  int bad = 0;
  memset(walked, 0, TILES);
#pragma omp parallel for schedule(static)
  for (int t = 0; t < TILES; ++t) {
    if (__atomic_load_n(&bad, __ATOMIC_RELAXED)) continue;
    if (tile_bad(index + t * TILE)) {
      __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
      continue;
    }
    memcpy(saved + t * TILE, out + t * TILE, TILE);
    walk_tile(x, index + t * TILE, out + t * TILE, t);
    walked[t] = 1;
  }
  if (bad)
    for (int t = 0; t < TILES; ++t)
      if (walked[t]) memcpy(out + t * TILE, saved + t * TILE, TILE);
  return bad;
}

static int fresh_undo(const int8_t *x, const int64_t *index, int8_t *out,
                      char *walked) {
  int8_t *saved = malloc((size_t)TILES * TILE);
  if (!saved) return -1;
  int bad = tiles_with_undo(x, index, out, saved, walked);
  free(saved);
  return bad;
}

int main(int argc, char **argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 20;
  if (reps < 1) {
    fprintf(stderr, "gather_undo: reps: expected >= 1, got '%s'\n", argv[1]);
    return 2;
  }
  const int64_t nx = (int64_t)A * XB * XC * XD, n = (int64_t)TILES * TILE;
  int8_t *x = malloc(nx), *out = calloc(n, 1), *out2 = calloc(n, 1),
         *saved = calloc(n, 1);
  int64_t *index = malloc(n * sizeof *index);
  char *walked = malloc(TILES);
  if (!x || !out || !out2 || !saved || !index || !walked) return 1;
  srand(1);
  for (int64_t i = 0; i < nx; ++i) x[i] = (int8_t)rand();
  for (int64_t i = 0; i < n; ++i) index[i] = rand() % XC;
  double best[4] = {1e9, 1e9, 1e9, 1e9};
  for (int r = 0; r < reps; ++r) {
    double at[5];
    at[0] = seconds();
    two_passes(x, index, out);
    at[1] = seconds();
    tiles_with_undo(x, index, out2, saved, walked);
    at[2] = seconds();
    fresh_undo(x, index, out2, walked);
    at[3] = seconds();
    walk_all(x, index, out);
    at[4] = seconds();
    for (int k = 0; k < 4; ++k)
      if (at[k + 1] - at[k] < best[k]) best[k] = at[k + 1] - at[k];
  }
  printf("threads %d, best of %d (ms): two passes %.2f, tiles with undo "
         "%.2f, with a fresh undo buffer %.2f, walk alone %.2f\n",
         omp_get_max_threads(), reps, best[0] * 1e3, best[1] * 1e3,
         best[2] * 1e3, best[3] * 1e3);
  const int same = memcmp(out, out2, n) == 0;
  index[n - 5] = XC; /* one bad value near the end */
  memset(out, 7, n);
  memcpy(out2, out, n);
  const int bad = tiles_with_undo(x, index, out2, saved, walked);
  const int restored = memcmp(out, out2, n) == 0;
  printf("same output: %s; bad value refused: %s; out unchanged: %s\n",
         same ? "yes" : "NO", bad ? "yes" : "NO", restored ? "yes" : "NO");
  return same && bad && restored ? 0 : 1;
}
