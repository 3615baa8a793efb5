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

/*
 * The defect a group is of, across ops. A helper that several ops share
 * (reduce_ops.h's amin, reduce.c's start value) fails in each op that
 * calls it, and each op is a group of its own (it shrinks to its own
 * minimal case, which the author needs); the defect joins them. Two groups
 * are one defect when, on their minimal cases, the same verdict, the same
 * variants (`variants_key`: sl_failure_variants_key), the same reduce (but
 * for a relation of include_self: the start value is one code path for
 * every reduce) and the same relation of the outputs to the right ones
 * (defect_relation.h: the whole output is LibTorch's answer to one named
 * other call) hold; the kind of the first wrong element is left out, the
 * relation says more. The relation is what makes
 * it one code path: two different bugs that share a reduce and "a value wrong"
 * give different relations, or none. A failure of a check on the code every
 * op goes through (sl_failure_shared_check: the entry's refusals, the
 * allocation error paths) needs no relation: its kind names that code, and
 * the reduce is left out too; so does an invalid case accepted where
 * LibTorch refused it, keyed by the case's class (casegen.h: an index out
 * of range, a dim out of range), the check a library's ops share, and a
 * crash, a hang or a write outside the output on such a case (the same
 * check missing). Otherwise,
 * without a relation (`relation`
 * ""), the defect is the group itself: out gets group's text and id, and
 * nothing merges. The op is not in the text: its name stays the same
 * whichever of the ops a run met (a JUnit name, a --known line).
 *
 * Returns the length of the variants key that out->text then starts with
 * (a space follows it): defects that differ only there join when their
 * variants overlap (sl_failure_variants_union); 0 for a group's own.
 */
size_t sl_defect_signature(const sl_case *c, const char *variants_key,
                           const char *verdict, const char *message,
                           const char *relation, const sl_failure_sig *group,
                           sl_failure_sig *out);

/* Whether message is one of a check on the code every op goes through
 * (call_checks.h, alloc_faults.h), or a crash in a named function of a
 * kernel library (crash_state.h): the same failure in two ops is one
 * defect of that code. */
int sl_failure_shared_check(const char *message);

/* s->id from s->text (FNV-1a 64, 16 hex digits). */
void sl_failure_sig_name(sl_failure_sig *s);

/* Whether the variants keys a (alen bytes) and b (blen bytes) share a
 * variant ("every variant" shares one with any key): then out gets their
 * union, "every variant" when either is, else the names in byte order. The
 * same f32 bug can fail cpu.atomic and cpu.lock in one dtype and every
 * variant in another (cpu.serial takes another path there): one defect. */
int sl_failure_variants_union(const char *a, size_t alen, const char *b,
                              size_t blen, char *out, size_t len);

/* Whether the first len bytes of name are a name of the comma-separated
 * list. */
int sl_failure_variant_listed(const char *list, const char *name, size_t len);

/* The variants of `variants` (a comma-separated list, of res's variants)
 * as a defect names them: "every variant" when they are all the variants
 * of res that judged the case (neither unsupported nor both_rejected), the
 * names in byte order otherwise (as a union of two keys writes them). Ops have
 * variant sets of their own; a shared helper fails them all. */
void sl_failure_variants_key(const struct sl_case_result *res,
                             const char *variants, char *out, size_t len);

#endif
