/* Core-to-core round-trip probe (see cpu_round_trip.h). */
#include "cpu_round_trip.h"

#include <stdatomic.h>

#include "timing.h"

#ifdef _OPENMP
#include <omp.h>

enum { SL__RTT_ROUNDS = 4096, SL__RTT_TRIES = 5 };
#define SL__RTT_CAP_S 0.02

/* The line the two threads hand back and forth (turn odd: thread 1's move,
 * even: thread 0's), and the stop sign thread 0 raises when it is done, on
 * a line of its own so that polling it does not disturb the hand-overs. */
typedef struct sl__pingpong {
  _Alignas(64) atomic_long turn;
  _Alignas(64) atomic_int stop;
} sl__pingpong;

/* Thread 0's side: hands the line over and waits for it back, `rounds`
 * times or until the cap; returns the round trips done, *secs their time. */
static long sl__serve(sl__pingpong *p, double *secs) {
  const double t0 = sl_now();
  long i = 0;
  for (; i < SL__RTT_ROUNDS; ++i) {
    atomic_store_explicit(&p->turn, 2 * i + 1, memory_order_release);
    for (unsigned spins = 1;
         atomic_load_explicit(&p->turn, memory_order_acquire) != 2 * i + 2;
         ++spins)
      if (spins % 1024 == 0 && sl_now() - t0 > SL__RTT_CAP_S) goto done;
  }
done:
  *secs = sl_now() - t0;
  atomic_store_explicit(&p->stop, 1, memory_order_release);
  return i;
}

/* Thread 1's side: answers every odd turn until thread 0 stops. */
static void sl__answer(sl__pingpong *p) {
  long want = 1;
  for (;;) {
    if (atomic_load_explicit(&p->turn, memory_order_acquire) == want) {
      atomic_store_explicit(&p->turn, want + 1, memory_order_release);
      want += 2;
    } else if (atomic_load_explicit(&p->stop, memory_order_acquire)) {
      return;
    }
  }
}

/* One try: ns per round trip, or 0 when the team has no pair. */
static double sl__rtt_try(int threads) {
  static sl__pingpong p;
  atomic_init(&p.turn, 0);
  atomic_init(&p.stop, 0);
  double secs = 0;
  long rounds = 0;
  int team = 0;
#pragma omp parallel num_threads(threads)
  {
#pragma omp single
    team = omp_get_num_threads(); /* the single's barrier publishes it */
    if (team >= 2 && omp_get_thread_num() == 0) rounds = sl__serve(&p, &secs);
    if (team >= 2 && omp_get_thread_num() == 1) sl__answer(&p);
  }
  if (team < 2) return 0;
  /* No round trip within the cap: at least the cap. */
  return secs / (double)(rounds > 0 ? rounds : 1) * 1e9;
}

double sl_cpu_round_trip_ns(int threads) {
  if (threads < 2) return 0;
  double best = 0;
  for (int k = 0; k < SL__RTT_TRIES; ++k) {
    const double ns = sl__rtt_try(threads);
    if (ns <= 0) return 0;
    if (best == 0 || ns < best) best = ns;
  }
  return best;
}
#else
double sl_cpu_round_trip_ns(int threads) {
  (void)threads;
  return 0;
}
#endif
