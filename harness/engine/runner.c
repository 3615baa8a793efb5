/* One case through the reference and every variant (see runner.h). */
#include "runner.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "adjoint.h"
#include "alloc_faults.h"
#include "byte_size.h"
#include "call_checks.h"
#include "clean_text.h"
#include "datagen.h"
#include "defect_relation.h"
#include "device.h"
#include "input_guard.h"
#include "npy.h"
#include "op_facts.h"
#include "oracles.h"
#include "out_layout.h"
#include "providers.h"
#include "rerun.h"
#include "runinfo.h"
#include "safe_file.h"
#include "show_tensors.h"
#include "sl_report.h"
#include "slref.h"
#include "typed_calls.h"
#include "variant_call.h"
#include "writes.h"

int sl_ref_defect_index(const char *name) {
  for (int i = 0; i < slref_defect_count() && i < SL_REF_DEFECTS_MAX; ++i)
    if (strcmp(slref_defect_at(i)->name, name) == 0) return i;
  return -1;
}

void sl_print_ref_defect(int row, int64_t cases, const char *indent) {
  const slref_defect *d = slref_defect_at(row);
  if (!d) return;
  char n[48] = "";
  if (cases >= 0) snprintf(n, sizeof n, " on %lld cases", (long long)cases);
  printf("%sreference: %s defect %s met%s: %s%s%s; expected answers computed "
         "by the op's definition instead (f32 accumulation, docs/spec.md §3)\n",
         indent, slref_version(), d->name, n, d->what,
         d->upstream[0] ? ", " : "", d->upstream);
}

void sl_print_untimed(const sl_variant_result *r) {
  const int line = (int)strcspn(r->message, "\n");
  printf("  %-12s not timed: %s%s%.*s\n", r->variant,
         sl_verdict_name(r->verdict), line ? ": " : "", line, r->message);
}

/* sl_repro_load's bundle, quoted for the shell, and whether its case line
 * is case.txt's (then the line is left out of the repro). */
static char sl__repro_dir[4200];
static int sl__repro_line_given;

void sl_repro_load(const char *dir, int line_given) {
  sl__repro_dir[0] = '\0';
  if (dir && sl_shell_word(dir, sl__repro_dir, sizeof sl__repro_dir))
    sl__repro_dir[0] = '\0';
  sl__repro_line_given = line_given;
}

void sl_repro(const char *line, const char *variant, char *buf, size_t len) {
  char cmd[SL_CASE_LINE_MAX + sizeof sl__repro_dir + 32];
  /* Loaded data is not a function of the line: the repro names the
   * bundle, and the line only when it was not case.txt's. */
  if (sl__repro_dir[0])
    snprintf(cmd, sizeof cmd, "scatterlab run --load %s%s%s%s", sl__repro_dir,
             sl__repro_line_given ? " '" : "", sl__repro_line_given ? line : "",
             sl__repro_line_given ? "'" : "");
  else
    snprintf(cmd, sizeof cmd, "scatterlab run '%s'", line);
  if (!variant) {
    snprintf(buf, len, "%s", cmd);
    return;
  }
  /* A provider's variant needs its library to run again. */
  const char *colon = strchr(variant, ':');
  for (size_t p = 0; colon && p < sl_provider_count(); ++p) {
    const sl_provider_loaded *pl = sl_provider_at(p);
    if (!pl->builtin && strlen(pl->name) == (size_t)(colon - variant) &&
        strncmp(pl->name, variant, (size_t)(colon - variant)) == 0) {
      /* Named so that it pastes on another machine (sl_report.h); a
       * Python module by its py: spec, which pastes anywhere. */
      char option[2 * 4096 + 256];
      if (pl->py_module[0]) {
        char spec[2 * 4096 + 128], quoted[sizeof spec];
        sl_provider_spec(pl, spec, sizeof spec);
        if (sl_shell_word(spec, quoted, sizeof quoted)) quoted[0] = '\0';
        snprintf(option, sizeof option, " --provider %s", quoted);
      } else {
        sl_repro_provider(pl->name, pl->path, pl->from_env, option,
                          sizeof option);
      }
      snprintf(buf, len, "%s --variants %s%s", cmd, variant, option);
      return;
    }
  }
  snprintf(buf, len, "%s --variants %s", cmd, variant);
}

static double sl__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether one filter item selects name: the name itself; a glob
 * ("mylib:*", "*.lock"); or a device ("cpu", "mylib:cuda"), which selects
 * the variants whose name, with or without its provider prefix, continues
 * with '.' after it. */
static int sl__item_selects(const char *item, const char *name) {
  if (strpbrk(item, "*?[")) return fnmatch(item, name, 0) == 0;
  if (strcmp(item, name) == 0) return 1;
  size_t k = strlen(item);
  const char *colon = strchr(name, ':');
  const char *plain = colon ? colon + 1 : name;
  return (strncmp(name, item, k) == 0 && name[k] == '.') ||
         (strncmp(plain, item, k) == 0 && plain[k] == '.');
}

int sl_variant_selected(const char *filter, const char *name) {
  if (!filter || !*filter) return 1;
  for (const char *p = filter; *p;) {
    const char *comma = strchr(p, ',');
    size_t k = comma ? (size_t)(comma - p) : strlen(p);
    char item[128];
    snprintf(item, sizeof item, "%.*s", (int)(k < sizeof item ? k : 0), p);
    if (item[0] && sl__item_selects(item, name)) return 1;
    if (!comma) break;
    p = comma + 1;
  }
  return 0;
}

/* Hands ownership of tensor memory to slot `slot` of b. */
/* Element offset of the row-major position i in t (any strides). */
static int64_t sl__offset_of(const sl_tensor *t, int64_t i) {
  int64_t off = 0;
  for (int d = t->ndim - 1; d >= 0; --d) {
    off += (i % t->shape[d]) * t->strides[d];
    i /= t->shape[d];
  }
  return off;
}

/* Slot `slot` of b becomes a tensor of layout cs->layout (strides as the
 * generator lays them out: sl_bundle_alloc) holding the values of the
 * contiguous tensor t. A broadcast layout keeps one row for all of dim 0,
 * so t's rows must be equal; else an error naming the file. */
static int sl__relayout(sl_bundle *b, int slot, const sl_tensor *t,
                        const sl_case_shape *cs, const char *path, char *err,
                        size_t errlen) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  size_t es = sl_dtype_size(t->dtype);
  if (sl_case_shape_broadcast(cs) && n > 0) {
    size_t row = (size_t)(n / t->shape[0]) * es;
    for (int64_t r = 1; r < t->shape[0]; ++r)
      if (memcmp((const char *)t->data + (size_t)r * row, t->data, row)) {
        snprintf(err, errlen,
                 "--load: %s: expected every row along dim 0 equal to row 0 "
                 "(layout b: broadcast, in the case line), got row %lld "
                 "different; drop the :b from the case line",
                 path, (long long)r);
        return -1;
      }
  }
  if (sl_bundle_alloc(b, slot, t->dtype, cs, path, err, errlen)) return -1;
  const sl_tensor *dst = &b->call.arg[slot];
  for (int64_t i = 0; i < n; ++i)
    memcpy((char *)dst->data + sl__offset_of(dst, i) * (int64_t)es,
           (const char *)t->data + i * (int64_t)es, es);
  /* An overlapped layout (o<k>) shares memory between elements too: read
   * back, each must be what the file holds. */
  for (int64_t i = 0; cs->layout == SL_LAYOUT_OVERLAPPED && i < n; ++i)
    if (memcmp((const char *)dst->data + sl__offset_of(dst, i) * (int64_t)es,
               (const char *)t->data + i * (int64_t)es, es)) {
      snprintf(err, errlen,
               "--load: %s: expected the elements that share memory in the "
               "case line's layout o%d equal, got element %lld different; "
               "drop the :o%d from the case line",
               path, cs->step, (long long)i, cs->step);
      return -1;
    }
  return 0;
}

/* --load: every input slot of b whose <name>.npy exists in dir replaces the
 * generated tensor; c's shapes follow, so the printed line tells the truth.
 * A file that cannot be what it claims is an error, never skipped: a link
 * to nothing, or the src.npy of a scatter whose case gives val= (with it
 * the printed repro had both, which the case parser refuses). */
static int sl__load_inputs(const char *dir, sl_bundle *b, sl_case *c,
                           const char *const *names, int n_in, char *err,
                           size_t errlen) {
  const sl_case_spec *spec = sl_case_spec_of(c->op);
  for (int s = 0; s < n_in; ++s) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s.npy", dir, names[s]) >=
        (int)sizeof path) {
      snprintf(err, errlen,
               "--load %.64s...: expected a path of at most %zu bytes for "
               "%s.npy, got a longer one",
               dir, sizeof path - 1, names[s]);
      return -1;
    }
    struct stat st;
    if (lstat(path, &st) != 0) continue; /* absent: generated */
    if (stat(path, &st) != 0) {
      snprintf(err, errlen,
               "--load: %s: expected an .npy file, got a symbolic link to "
               "nothing (%s)",
               path, strerror(errno));
      return -1;
    }
    if (s == spec->optional_slot && c->has_val) {
      snprintf(err, errlen,
               "--load: %s: expected no %s.npy for a case with val= (%s "
               "takes %s or a value, not both); remove the file or the val=",
               path, names[s], sl_op_name(c->op), names[s]);
      return -1;
    }
    sl_tensor t;
    int want = b->call.arg[s].data ? (int)b->call.arg[s].dtype : -1;
    if (sl_npy_load(path, want, &t, err, errlen)) return -1;
    sl_case_shape *cs = &c->arg[s];
    if (cs->present || b->call.arg[s].ndim) {
      /* The layout stays the case line's (case.txt: x=4x3:t), applied to
       * the loaded shape: the kernel gets the strides it got when the
       * bundle was saved (a stride bug reproduces from its own bundle). A
       * 0-dim tensor has no strides to lay out. */
      cs->present = 1;
      cs->ndim = t.ndim;
      memcpy(cs->shape, t.shape, sizeof cs->shape);
      if (t.ndim == 0) cs->layout = SL_LAYOUT_CONTIGUOUS, cs->step = 0;
    }
    if (cs->present && cs->layout != SL_LAYOUT_CONTIGUOUS) {
      int rc = sl__relayout(b, s, &t, cs, path, err, errlen);
      free(t.data);
      if (rc) return -1;
    } else if (sl_bundle_adopt(b, s, t, err, errlen)) {
      return -1;
    }
  }
  return 0;
}

/*
 * Builds the inputs of a backward op from its forward case: the forward's
 * inputs, LibTorch's forward outputs (the op's backward_inputs hook puts
 * them in their slots), and a random upstream gradient. When LibTorch
 * rejects the forward (an invalid case), the derived inputs are zero
 * tensors of the shapes they would have, so that the backward call is still
 * made and both sides get to reject it.
 */
static int sl__derive_backward(const sl_case *c, sl_bundle *fwd, sl_bundle *b,
                               char *err, size_t errlen) {
  sl_tensor outs[SL_MAX_ARGS];
  char msg[512];
  memset(outs, 0, sizeof outs);
  int rc = slref_run(&fwd->call, outs, msg, sizeof msg);
  if (rc == 2) {
    snprintf(err, errlen, "reference forward failed: %s", msg);
    return -1;
  }
  sl_bundle_init(b, c->op);
  sl_case_call_params(c, &b->call);
  const sl_harness_op *h = sl_harness_op_of(c->op);
  if (h->backward_inputs(c, fwd, rc == 0 ? outs : NULL, b, err, errlen))
    return -1;
  sl_gen_fill_data(&b->call.arg[0], SL_DP_RAND, c->seed, 77);
  return 0;
}

static int sl__save_tensor(const char *dir, const char *prefix,
                           const char *name, const sl_tensor *t, char *err,
                           size_t errlen) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s%s.npy", dir, prefix, name) >=
      (int)sizeof path) {
    snprintf(err, errlen,
             "--save %.64s...: expected a path of at most %zu bytes for "
             "%s%s.npy, got a longer one",
             dir, sizeof path - 1, prefix, name);
    return -1;
  }
  return sl_npy_save(path, t, err, errlen);
}

/* Whether two paths name one folder (--load DIR --save DIR rewrites the
 * bundle it read: no --force needed). */
static int sl__same_dir(const char *a, const char *b) {
  struct stat x, y;
  return a && b && stat(a, &x) == 0 && stat(b, &y) == 0 &&
         x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/*
 * case.txt: the case line, whose NAME=SHAPE:LAYOUT words are what --load
 * reapplies (the strides follow from shape and layout), then one comment
 * line per input naming the strides its kernel got, for a reader who
 * rebuilds the call elsewhere (torch.as_strided); --load reads the first
 * line only. The line is parsed back first: a bundle whose case.txt
 * `run --load` would refuse is never written.
 */
static int sl__save_case_txt(const char *dir, const char *line,
                             const sl_call *call, char *err, size_t errlen) {
  sl_case back;
  char perr[512];
  if (sl_case_parse(line, &back, perr, sizeof perr)) {
    snprintf(err, errlen,
             "--save %s: expected a case line that parses back, got \"%s\" "
             "(%s)",
             dir, line, perr);
    return -1;
  }
  const sl_op_info *info = sl_op_get(call->op);
  char path[4096], text[SL_CASE_LINE_MAX + SL_MAX_ARGS * 256];
  int n = snprintf(text, sizeof text, "%s\n", line);
  for (int s = 0; s < info->n_in && n < (int)sizeof text; ++s) {
    const sl_tensor *t = &call->arg[s];
    if (!t->data) continue;
    n += snprintf(text + n, sizeof text - (size_t)n, "# %s.npy: strides (",
                  info->arg_names[s]);
    for (int d = 0; d < t->ndim && n < (int)sizeof text; ++d)
      n += snprintf(text + n, sizeof text - (size_t)n, "%s%lld", d ? ", " : "",
                    (long long)t->strides[d]);
    if (n < (int)sizeof text)
      n += snprintf(text + n, sizeof text - (size_t)n,
                    ") in elements, from the layout in the line above\n");
  }
  snprintf(path, sizeof path, "%s/case.txt", dir);
  return sl_safe_write_text(path, text, err, errlen);
}

static int sl__save_inputs(const char *dir, int force, const char *line,
                           const sl_call *call, char *err, size_t errlen) {
  if (sl_safe_dir(dir, force, "--save", err, errlen)) return -1;
  if (sl__save_case_txt(dir, line, call, err, errlen)) return -1;
  const sl_op_info *info = sl_op_get(call->op);
  for (int s = 0; s < info->n_in; ++s)
    if (call->arg[s].data && sl__save_tensor(dir, "", info->arg_names[s],
                                             &call->arg[s], err, errlen))
      return -1;
  return 0;
}

static int sl__all_zero(const sl_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  size_t bytes = (size_t)n * sl_dtype_size(t->dtype);
  const unsigned char *p = t->data; /* reference outputs are contiguous */
  for (size_t i = 0; i < bytes; ++i)
    if (p[i]) return 0;
  return n > 1;
}

/* Why a passing case proves little, or NULL. */
static const char *sl__mistrust(const sl_case *c, const sl_call *call,
                                const sl_tensor *ref) {
  const sl_op_info *info = sl_op_get(call->op);
  int all_zero = 1;
  for (int s = 0; s < info->n_out; ++s) all_zero &= sl__all_zero(&ref[s]);
  if (all_zero) return "every reference output is zero";
  if (c->ip == SL_IP_DUP || c->ip == SL_IP_ONE) {
    sl_writes w;
    if (sl_writes_build(call, &w) == 0) {
      int collide = sl_writes_collide(&w);
      sl_writes_free(&w);
      if (!collide) return "a duplicate-heavy case whose indices never collide";
    }
  }
  /* Judged on the variant's own output, which passed the oracle: then a
   * kernel that wrote nothing would have passed too. LibTorch's output
   * would do for most cases, but where duplicate indices leave the winner
   * open (scatter_nd on bool) it changes with LibTorch's threads, and the
   * same case read passed in one run and mistrusted in the next
   * (store_modes.sh, 1 run in 6). */
  const sl_harness_op *h = sl_harness_op_of(call->op);
  if (!h || !h->writes_into_x) return NULL;
  const sl_tensor *x = &call->arg[0];
  sl_diff d;
  int64_t n = 1;
  for (int k = 0; k < x->ndim; ++k) n *= x->shape[k];
  if (n > 0 &&
      sl_compare(&call->arg[info->n_in], x, SL_ORACLE_BITWISE, NULL, &d))
    return "the output equals x: the writes changed nothing";
  return NULL;
}

static char *sl__phase_slot;
static size_t sl__phase_len;

void sl_runner_phase_to(char *slot, size_t len) {
  sl__phase_slot = slot;
  sl__phase_len = len;
}

void sl_runner_phase(const char *what) {
  if (sl__phase_slot && sl__phase_len)
    snprintf(sl__phase_slot, sl__phase_len, "%s", what ? what : "");
}

/* cmp: the variant's sl_compare_as flags. */
static void sl__judge(const sl_case *c, sl_call *vc, const sl_tensor *ref,
                      unsigned cmp, sl_variant_result *r) {
  const sl_op_info *info = sl_op_get(vc->op);
  r->verdict = SL_VERDICT_PASSED;
  r->has_diffs = 1;
  sl_outputs_as_produced(vc);
  for (int s = 0; s < info->n_out; ++s) {
    int slot = info->n_in + s;
    sl_diff d;
    int ok = sl_compare_as(&vc->arg[slot], &ref[s], sl_oracle_for(c, slot), vc,
                           cmp, &d);
    if (d.diff1 > r->diff1 || d.diff1 != d.diff1) r->diff1 = d.diff1;
    if (d.diff2 > r->diff2 || d.diff2 != d.diff2) r->diff2 = d.diff2;
    if (d.diff3 > r->diff3 || d.diff3 != d.diff3) r->diff3 = d.diff3;
    if (!ok && r->verdict == SL_VERDICT_PASSED) {
      r->verdict = SL_VERDICT_FAILED;
      snprintf(r->message, sizeof r->message, "%s: %s (%lld elements wrong)",
               info->arg_names[slot], d.msg, (long long)d.mismatches);
    }
  }
  if (r->verdict == SL_VERDICT_PASSED) {
    const char *why = sl__mistrust(c, vc, ref);
    if (why) {
      r->verdict = SL_VERDICT_MISTRUSTED;
      snprintf(r->message, sizeof r->message, "%s", why);
    }
  }
}

/* 1 (and r failed with msg) when a check says 0: the variant broke it. */
static int sl__broke(int agrees, const char *msg, sl_variant_result *r) {
  if (agrees != 0) return 0;
  r->verdict = SL_VERDICT_FAILED;
  snprintf(r->message, sizeof r->message, "%s", msg);
  return 1;
}

/* Checks without LibTorch, on a passing variant's output: the adjoint
 * identity of the adding scatters (adjoint.h), the typed entry points and
 * the refusals of broken calls (for cpu.serial: typed_calls.h,
 * call_checks.h), the error paths under allocation faults
 * (alloc_faults.h), and second runs (rerun.h): the updates in reverse
 * order must not move an order-free result, and another thread count must
 * give a variant flagged deterministic the same bits (for the others a
 * difference is noted with the verdict). */
static void sl__rerun(const sl_variant *v, const sl_case *c,
                      const sl_call *inferred, unsigned copies, int threads,
                      int rerun_threads, const sl_call *first, uint64_t seed,
                      sl_variant_result *r) {
  double spread;
  char msg[400];
  int applied;
  const int serial = strcmp(v->name, "cpu.serial") == 0;
  /* The adding scatters against the gather by the same index, the backward
   * ops against their forward (adjoint.h): no reference involved. */
  if (sl__broke(
          sl_adjoint_agrees(inferred, first, seed, &applied, msg, sizeof msg),
          msg, r))
    return;
  /* scatterlab's own cpu.serial again through the op's typed entry point
   * (typed_calls.h): the same bits, or the typed API misplaces something.
   * Its call broken one way at a time must be refused, the argument named
   * (call_checks.h): the validation in front of every variant. */
  if (serial && (sl__broke(sl_typed_agrees(inferred, copies, first, &applied,
                                           msg, sizeof msg),
                           msg, r) ||
                 sl__broke(sl_call_checks_agree(v, inferred, copies, seed,
                                                &applied, msg, sizeof msg),
                           msg, r)))
    return;
  /* One of its allocations failing (alloc_faults.h): out_of_memory or a
   * right answer, nothing leaked or written out of bounds. */
  if (sl__broke(sl_alloc_faults_agree(v, c, inferred, copies, threads, first,
                                      seed, &applied, msg, sizeof msg),
                msg, r))
    return;
  /* Order-free results (amax, amin, integers) must not move when the same
   * updates come in another order: a failure for any variant. */
  if (sl__broke(sl_permuted_agrees(v, inferred, copies, threads, first,
                                   &applied, msg, sizeof msg),
                msg, r))
    return;
  const int agrees =
      sl_rerun_agrees(v, inferred, copies, threads, rerun_threads, first,
                      &spread, msg, sizeof msg);
  if (agrees == 1) return;
  if (agrees == 0 && (v->flags & SL_DETERMINISTIC)) {
    r->verdict = SL_VERDICT_FAILED;
    snprintf(r->message, sizeof r->message,
             "not deterministic, though flagged so: %s", msg);
    return;
  }
  size_t k = strlen(r->message);
  snprintf(r->message + k, sizeof r->message - k, "%s%s%s", k ? "; " : "",
           agrees == 0 ? "rerun: " : "rerun not made: ", msg);
  if (agrees == 0) {
    k = strlen(r->message);
    snprintf(r->message + k, sizeof r->message - k, "; spread max |a-b| %.3g",
             spread);
  }
}

/* The verdict of a kernel's status: 0 when st is one of sl.h's codes,
 * else `failed` with the number (a provider returned garbage). */
static int sl__undefined_status(sl_status st, sl_variant_result *r) {
  if ((unsigned)st < SL_STATUS_COUNT) return 0;
  r->verdict = SL_VERDICT_FAILED;
  snprintf(r->message, sizeof r->message,
           "returned an undefined status code %d (expected an sl_status of "
           "sl/sl.h, 0..%d)",
           (int)st, SL_STATUS_COUNT - 1);
  return 1;
}

/* With o->shown: the outputs' digest into r, and for a failure their
 * relation to the right ones (defect_relation.h) and the outputs
 * themselves, labelled with the variant ("got (cpu.omp) out ..."). */
static void sl__show_got(const sl_run_opts *o, const sl_case *c,
                         const char *variant, sl_op op, const sl_call *call,
                         sl_variant_result *r) {
  if (!o->shown || !o->shown_len) return;
  const sl_op_info *info = sl_op_get(op);
  r->out_digest = sl_outputs_digest(&call->arg[info->n_in], info->n_out);
  if (!sl_verdict_is_failure(r->verdict)) return;
  sl_defect_relation(c, call, r->relation, sizeof r->relation);
  char prefix[SL_VARIANT_NAME_LEN + 8];
  snprintf(prefix, sizeof prefix, "got (%s) ", variant);
  sl_show_slots(o->shown, o->shown_len, prefix, op, call->arg, info->n_in,
                info->n_in + info->n_out, 0);
}

/* Runs one variant on the inputs of `call` and judges it. */
static void sl__run_variant(const sl_case *c, const sl_run_opts *o,
                            const sl_hvariant *hv, const sl_call *call,
                            int ref_rc, const sl_tensor *ref,
                            const char *ref_msg, sl_variant_result *r,
                            const char *line) {
  const sl_op_info *info = sl_op_get(call->op);
  const sl_variant *v = &hv->v;
  memset(r, 0, sizeof *r);
  snprintf(r->variant, sizeof r->variant, "%s", v->name);
  r->seconds = -1;
  const char *why;
  if (!sl_variant_available(v, &why)) {
    r->verdict = SL_VERDICT_UNSUPPORTED;
    snprintf(r->message, sizeof r->message, "%s", why);
    return;
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = o->threads > 0 ? o->threads : sl_default_threads();
  sl_call inferred = *call;
  /* A variant that checks the index values itself gets every case whose
   * shapes hold, bad values included: then its own check is judged (it
   * must refuse as LibTorch does: both_rejected), not the core's. */
  sl_status st = (v->flags & SL_CHECKS_INDEX_VALUES)
                     ? sl_infer_shapes(&ctx, &inferred)
                     : sl_infer(&ctx, &inferred);
  unsigned copies = 0;
  char note[256] = "";
  /* Capabilities bound valid calls only: an invalid one is refused by the
   * validation before any kernel, whatever the variant declares. */
  if (!st && !sl_hvariant_admits(hv, c, &inferred, &copies, r->message,
                                 sizeof r->message)) {
    r->verdict = SL_VERDICT_UNSUPPORTED;
    return;
  }
  /* The layout the timing gives it too (bench_case.h): checked as timed. */
  if (!st && sl_hvariant_lays_out_like_reference(hv))
    sl_outputs_like_reference(&inferred);
  sl_variant_call vc;
  if (sl_variant_call_prepare(&vc, &inferred, copies, note, sizeof note)) {
    r->verdict = SL_VERDICT_UNSUPPORTED;
    snprintf(r->message, sizeof r->message, "out of memory for the outputs");
    return;
  }
  int device_fault = 0;
  if (!st) {
    double t0 = sl__now();
    /* cuda.* variants run on device copies of the inputs, with guarded,
     * poisoned outputs (device.h). */
    st = sl_variant_device(v) == SL_DEVICE_CUDA
             ? sl_device_run_variant(&ctx, v, &vc.call, &device_fault)
             : sl_run_variant(&ctx, v, &vc.call);
    r->seconds = sl__now() - t0;
  }
  char guard[256];
  int kernel_rejected = st != SL_STATUS_OK;
  int ref_rejected = ref_rc != 0;
  if (sl__undefined_status(st, r)) {
  } else if (device_fault) {
    /* The kernel broke a check of the device run (device.h): a failure,
     * not a refusal to compare with LibTorch's. */
    r->verdict = SL_VERDICT_FAILED;
    snprintf(r->message, sizeof r->message, "%s", sl_ctx_message(&ctx));
  } else if (!sl_variant_call_guards_ok(&vc, guard, sizeof guard)) {
    r->verdict = SL_VERDICT_FAILED;
    snprintf(r->message, sizeof r->message, "%s", guard);
  } else if (kernel_rejected && ref_rejected) {
    r->verdict = SL_VERDICT_BOTH_REJECTED;
    snprintf(r->message, sizeof r->message, "kernel: %.240s; LibTorch: %.240s",
             sl_ctx_message(&ctx), ref_msg);
  } else if (kernel_rejected) {
    r->verdict = SL_VERDICT_REJECT_MISMATCH;
    snprintf(r->message, sizeof r->message,
             "kernel rejected (%s: %s), LibTorch accepted", sl_status_name(st),
             sl_ctx_message(&ctx));
  } else if (ref_rejected) {
    r->verdict = SL_VERDICT_REJECT_MISMATCH;
    snprintf(r->message, sizeof r->message, SL_ACCEPTED_PREFIX ": %.400s",
             ref_msg);
  } else {
    /* Device adds flush subnormals (oracles.h). */
    sl__judge(c, &vc.call, ref,
              sl_variant_device(v) == SL_DEVICE_CUDA ? SL_CMP_FTZ_ADDS : 0, r);
    if ((r->verdict == SL_VERDICT_PASSED ||
         r->verdict == SL_VERDICT_MISTRUSTED) &&
        sl_rerun_selected(o->rerun_every, c->seed))
      sl__rerun(v, c, &inferred, copies, ctx.threads, o->rerun_threads,
                &vc.call, c->seed, r);
    sl__show_got(o, c, v->name, c->op, &vc.call, r);
    if (o->save_dir && line) {
      char err[256], prefix[SL_VARIANT_NAME_LEN + 2];
      snprintf(prefix, sizeof prefix, "%s.", v->name);
      for (int s = 0; s < info->n_out; ++s)
        if (sl__save_tensor(o->save_dir, prefix,
                            info->arg_names[info->n_in + s],
                            &vc.call.arg[info->n_in + s], err, sizeof err))
          fprintf(stderr, "scatterlab: %s\n", err); /* the verdict stands */
    }
  }
  if (note[0]) {
    size_t k = strlen(r->message);
    snprintf(r->message + k, sizeof r->message - k, "%s%s", k ? "; " : "",
             note);
  }
  /* The kernel's words, safe for every writer (clean_text.h). */
  sl_text_clean(r->message, sizeof r->message, r->message);
  sl_variant_call_free(&vc);
}

/* "--max-case-bytes: expected a case of at most 6.0 GiB, got one of
 * 8.0 GiB (...)"; returns -1. */
static int sl__too_big(uint64_t need, uint64_t cap, const char *what, char *err,
                       size_t errlen) {
  char a[32], b[32];
  snprintf(err, errlen,
           "--max-case-bytes: expected a case of at most %s, got one of %s "
           "(%s); refused before allocating it: raise --max-case-bytes or "
           "shrink the case",
           sl_bytes_str(cap, a, sizeof a), sl_bytes_str(need, b, sizeof b),
           what);
  return -1;
}

/* The whole case against the cap once its inputs exist, before LibTorch or
 * any variant allocates outputs: the inputs plus two copies of the outputs
 * (LibTorch's, kept while each variant writes its own). The output shapes
 * come from the core's shape check; a call that fails it allocates none. */
static int sl__check_case_bytes(const sl_call *call, uint64_t cap, char *err,
                                size_t errlen) {
  const sl_op_info *info = sl_op_get(call->op);
  uint64_t in = 0, out = 0;
  for (int s = 0; s < info->n_in; ++s)
    in += sl_tensor_span_bytes(&call->arg[s]);
  sl_call shapes = *call;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int64_t n;
  if (sl_infer_shapes(&ctx, &shapes) == SL_STATUS_OK)
    for (int s = info->n_in; s < info->n_in + info->n_out; ++s)
      if (!sl_tensor_numel(&ctx, "out", &shapes.arg[s], &n))
        out += (uint64_t)n * sl_dtype_size(shapes.arg[s].dtype);
  if (in + 2 * out <= cap) return 0;
  char what[96], a[32], b[32];
  snprintf(what, sizeof what, "inputs %s, outputs 2 x %s",
           sl_bytes_str(in, a, sizeof a), sl_bytes_str(out, b, sizeof b));
  return sl__too_big(in + 2 * out, cap, what, err, errlen);
}

int sl_prepare_case(const sl_case *c0, const char *load_dir,
                    uint64_t max_case_bytes, sl_case *c, sl_bundle *out,
                    char *err, size_t errlen) {
  sl_case fw;
  *c = *c0;
  int backward = sl_case_forward(c, &fw);
  sl_bundle fwd;
  sl_bundle_init(out, c->op);
  /* The generated inputs alone, before any of them is allocated. */
  uint64_t need, cap = sl_case_bytes_cap(max_case_bytes);
  if (sl_case_input_bytes(&fw, &need, err, errlen)) return -1;
  if (need > cap) return sl__too_big(need, cap, "its inputs", err, errlen);
  if (sl_gen_inputs(&fw, &fwd, err, errlen)) return -1;
  int rc = -1;
  if (load_dir) {
    const sl_op_info *fi = sl_op_get(fw.op);
    if (sl__load_inputs(load_dir, &fwd, &fw, fi->arg_names, fi->n_in, err,
                        errlen))
      goto done;
    /* Carry loaded forward shapes back into the case. */
    if (backward) {
      const sl_case_spec *bs = sl_case_spec_of(c->op);
      for (int i = 0; i < bs->n_shapes; ++i)
        c->arg[bs->shape_slots[i]] = fw.arg[i];
    } else {
      *c = fw;
    }
  }
  if (!backward) {
    *out = fwd;
    return 0;
  }
  if (sl__derive_backward(c, &fwd, out, err, errlen)) goto done;
  if (load_dir) {
    const sl_op_info *bi = sl_op_get(c->op);
    sl_case scratch = *c;
    if (sl__load_inputs(load_dir, out, &scratch, bi->arg_names, bi->n_in, err,
                        errlen))
      goto done;
  }
  rc = 0;
done:
  sl_bundle_free(&fwd);
  if (rc) sl_bundle_free(out);
  return rc;
}

int sl_variants_check(const char *filter, int op, char *err, size_t errlen) {
  for (size_t i = 0; i < sl_hvariant_count(); ++i) {
    const sl_hvariant *v = sl_hvariant_at(i);
    if ((int)v->v.op == op && sl_variant_selected(filter, v->name)) return 0;
  }
  snprintf(err, errlen,
           "--variants %s: expected variants of %s (see `scatterlab list`), "
           "matched none",
           filter ? filter : "", sl_op_name((sl_op)op));
  return -1;
}

/* After variant r: a kernel that wrote an input fails, named, and the
 * inputs are put back for the next (input_guard.h). */
static void sl__inputs_kept(sl_input_guard *g, sl_bundle *b, const sl_case *c0,
                            const sl_run_opts *o, sl_variant_result *r) {
  char why[400];
  const int written = sl_input_guard_check(g, b, c0, o->load_dir,
                                           o->max_case_bytes, why, sizeof why);
  if (!written) return;
  if (written < 0) /* left as they are: blame no one after it */
    sl_input_guard_mark(g, b, g->n_in);
  const size_t k = strlen(r->message);
  if (sl_verdict_is_failure(r->verdict)) {
    snprintf(r->message + k, sizeof r->message - k, "; %s", why);
  } else {
    r->verdict = SL_VERDICT_FAILED;
    snprintf(r->message, sizeof r->message, "%s", why);
  }
}

int sl_run_case(const sl_case *c0, const sl_run_opts *o, sl_case_result *res,
                char *err, size_t errlen) {
  sl_case c;
  sl_bundle b;
  memset(res, 0, sizeof *res);
  if (sl_prepare_case(c0, o->load_dir, o->max_case_bytes, &c, &b, err, errlen))
    return -1;
  int rc = -1;
  sl_tensor ref[SL_MAX_ARGS];
  memset(ref, 0, sizeof ref);
  if (sl__check_case_bytes(&b.call, sl_case_bytes_cap(o->max_case_bytes), err,
                           errlen))
    goto done;
  sl_case_print(&c, res->line, sizeof res->line);
  if (o->save_dir &&
      sl__save_inputs(o->save_dir,
                      o->save_force || sl__same_dir(o->save_dir, o->load_dir),
                      res->line, &b.call, err, errlen))
    goto done;
  char ref_msg[512] = "";
  int ref_rc = slref_run(&b.call, ref, ref_msg, sizeof ref_msg);
  if (ref_rc == 2) {
    snprintf(err, errlen, "LibTorch reference failed internally: %s", ref_msg);
    goto done;
  }
  if (ref_rc == 1)
    snprintf(res->ref_message, sizeof res->ref_message, "%s", ref_msg);
  const slref_defect *defect = ref_rc == 0 ? slref_last_defect() : NULL;
  if (defect)
    snprintf(res->ref_defect, sizeof res->ref_defect, "%s", defect->name);
  const sl_op_info *info = sl_op_get(c.op);
  if (o->on_event) o->on_event(o->user, SL_EVENT_REFERENCE_DONE, NULL, NULL);
  if (ref_rc == 0 && o->save_dir) {
    for (int s = 0; s < info->n_out; ++s)
      if (sl__save_tensor(o->save_dir, "ref.", info->arg_names[info->n_in + s],
                          &ref[s], err, errlen))
        goto done;
  }
  if (o->shown && o->shown_len) {
    o->shown[0] = '\0';
    sl_show_slots(o->shown, o->shown_len, "", c.op, b.call.arg, 0, info->n_in,
                  0);
    if (ref_rc == 0)
      sl_show_slots(o->shown, o->shown_len, "expected ", c.op, ref, info->n_in,
                    info->n_in + info->n_out, info->n_in);
  }
  /* What every variant must leave as it found it (input_guard.h). */
  sl_input_guard guard;
  sl_input_guard_mark(&guard, &b, info->n_in);
  int selected = 0;
  for (size_t i = 0; i < sl_hvariant_count() && res->n < SL_MAX_VERDICTS; ++i) {
    const sl_hvariant *v = sl_hvariant_at(i);
    if (v->v.op != c.op || !sl_variant_selected(o->variants, v->name)) continue;
    if (selected++ < o->skip) continue;
    sl_variant_result *r = &res->v[res->n++];
    if (o->on_event)
      o->on_event(o->user, SL_EVENT_VARIANT_START, v->name, NULL);
    sl__run_variant(&c, o, v, &b.call, ref_rc, ref, ref_msg, r, res->line);
    sl__inputs_kept(&guard, &b, c0, o, r);
    if (sl_verdict_is_failure(r->verdict)) ++res->failures;
    if (o->on_event) o->on_event(o->user, SL_EVENT_VARIANT_DONE, v->name, r);
  }
  if (selected == 0) {
    sl_variants_check(o->variants, c.op, err, errlen);
    goto done;
  }
  rc = 0;
done:
  for (int s = 0; s < SL_MAX_ARGS; ++s) free(ref[s].data);
  sl_bundle_free(&b);
  return rc;
}
