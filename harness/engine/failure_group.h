/*
 * Failure triage: the signature that groups failures which are one bug.
 *
 * Two failures belong to one group when they share the op, the variant, the
 * verdict, the class of the message (the message with every number
 * replaced by '#', a list of numbers by one, so that "index 3 of 4" and
 * "index 17 of 20" agree) and
 * the class of the shrunk case (its dtype kind, and per tensor the rank and
 * whether each extent is 0, 1 or more). The signature is a pure function of
 * those fields: every job of a campaign, every process, computes the same
 * one, so the corpus names an entry by it (one entry per group) and the
 * store, the summary, JSON, JUnit and the GitHub annotations count groups
 * alike.
 */
#ifndef SL_FAILURE_GROUP_H
#define SL_FAILURE_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "case.h"

typedef struct sl_failure_sig {
  /* "op variant verdict | dtype shape-class | message-class": what a reader
   * sees of the group */
  char text[768];
  char id[17]; /* FNV-1a 64 of text, 16 hex digits: names the corpus entry */
} sl_failure_sig;

/* The message with each number (digits, with a sign, decimals, exponent)
 * replaced by '#'; at most len - 1 bytes. */
void sl_failure_message_class(const char *message, char *out, size_t len);

/* The case's class: dtype, then per present tensor its rank and extents as
 * 0, 1 or N ("f32 [N,1] [N]"); at most len - 1 bytes. */
void sl_failure_shape_class(const sl_case *c, char *out, size_t len);

/* The signature of a failure of `variant` (verdict name `verdict`) on the
 * minimal case c with `message`. */
void sl_failure_signature(const sl_case *c, const char *variant,
                          const char *verdict, const char *message,
                          sl_failure_sig *out);

#endif
