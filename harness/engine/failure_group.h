/*
 * Failure triage: the signature that groups failures which are one bug.
 *
 * A group is a defect as a kernel author tells one from another, not a
 * class of cases: two failures belong to one group when they share the op,
 * the variant, the verdict, the reduce (of the ops that take one), the
 * output that went wrong first and the kind of wrongness: for a value
 * mismatch, a NaN lost, a NaN made, an element never written (it still
 * holds the poison the outputs start as) or a value wrong (an infinity
 * lost to a dropped term is that too); for any other message, its class
 * (numbers as '#') up to its first note ("; ..." or " (...)", which describe
 * the case: its layout, how many elements). Shapes, ranks and dtypes are left
 * out: a lost update met in f16 at rank 1 and in f64 at rank 5 is one bug (a
 * 10-s campaign of one planted bug made 17 groups by shape class). The
 * signature is a pure function of those fields: every job of a campaign,
 * every process, computes the same one, so the corpus names an entry by
 * it (one entry per group) and the store, the summary, JSON, JUnit and the
 * GitHub annotations count groups alike.
 */
#ifndef SL_FAILURE_GROUP_H
#define SL_FAILURE_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "case.h"

typedef struct sl_failure_sig {
  /* "op variant verdict | reduce output | kind": what a reader sees of
   * the group */
  char text[768];
  char id[17]; /* FNV-1a 64 of text, 16 hex digits: names the corpus entry */
} sl_failure_sig;

/* The message with each number (digits, with a sign, decimals, exponent)
 * replaced by '#'; at most len - 1 bytes. */
void sl_failure_message_class(const char *message, char *out, size_t len);

/* What a failure of case c with `message` says: the output it names
 * first ("-" when none) and the kind of wrongness (see above). */
void sl_failure_kind(const sl_case *c, const char *message, char *output,
                     size_t output_len, char *kind, size_t kind_len);

/* The signature of a failure of `variant` (verdict name `verdict`) on the
 * minimal case c with `message`. */
void sl_failure_signature(const sl_case *c, const char *variant,
                          const char *verdict, const char *message,
                          sl_failure_sig *out);

/*
 * The variants of res that fail case c as its variant `which` does, which
 * makes them one defect met in several variants (code they share) rather
 * than one each: the same verdict, and the same outputs (equal digests,
 * runner.h, of a run asked to show them) with the same kind of wrongness,
 * or, where no outputs were written (a refusal, a crash), the same
 * message. Written into out as a comma-separated list, `which`'s first
 * and the others in res's order (a --variants list: the repro runs them
 * all); each is marked in taken[] when taken is not NULL. Returns how
 * many.
 */
struct sl_case_result;
int sl_failure_variant_set(const sl_case *c, const struct sl_case_result *res,
                           int which, unsigned char *taken, char *out,
                           size_t len);

#endif
