/* prop_session.c: property tests of the session API: random histories of definitions, uses,
 * package switches, classes (redefined), generic functions and their methods (redefined, removed),
 * a fixture system loaded through the loader, errors, resets, checkpoints, restores and
 * session-file round trips, each step
 * checked against a model of the session state (seeds 000-003; issue 18: a restore or a round
 * trip gives back the model saved with it and the same list-definitions). Seeded; on failure prints the seed and a shrunk failing history.
 * Usage: prop_session [SEQUENCES] [SEED]   (env PROPERTY_SEED overrides the seed) */
#include "tinycl.h"
#include "prop.h"
#include "bootimage.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>


/* ---- operations ---- */
typedef enum {
    OP_DEFUN, OP_CALL, OP_DEFVAR, OP_DEFPARAMETER, OP_SETF, OP_READVAR, OP_DEFMACRO, OP_USE_MACRO,
    OP_DEFPACKAGE, OP_IN_PACKAGE, OP_PACKAGE_PARAM, OP_ERROR, OP_RESET, OP_CHECK_PACKAGE,
    OP_LIST_DEFINITIONS, OP_DEFCLASS, OP_FIND_CLASS, OP_DEFSTRUCT, OP_USE_STRUCT,
    OP_CHECKPOINT, OP_RESTORE, OP_FILE_ROUNDTRIP,
    OP_DEFGENERIC, OP_DEFMETHOD, OP_REMOVE_METHOD, OP_CALL_GENERIC, OP_MAKE_INSTANCE, OP_LOAD_SYSTEM, OP_USE_SYSTEM,
    OP_COUNT
} OpKind;

typedef struct Op { OpKind kind; int name; int value; int pkg; } Op;

#define NNAMES 4
#define NPKGS 3   /* 0 = CL-USER, 1 = P1, 2 = P2 */
static const char *const pkg_names[NPKGS] = {"COMMON-LISP-USER", "PROP-P1", "PROP-P2"};

/* ---- the model ---- */
typedef struct Model {
    int current;                       /* current package */
    bool pkg_exists[NPKGS];
    bool fn[NPKGS][NNAMES]; int fn_k[NPKGS][NNAMES];
    bool var[NPKGS][NNAMES]; int var_v[NPKGS][NNAMES];
    bool mac[NPKGS][NNAMES]; int mac_k[NPKGS][NNAMES];
    bool cls[NPKGS][NNAMES]; int cls_v[NPKGS][NNAMES];      /* the initform of its slot A */
    bool st[NPKGS][NNAMES]; int st_v[NPKGS][NNAMES];
    bool gf[NPKGS][NNAMES];                                  /* generic function PROP-Gi */
    bool gm[NPKGS][NNAMES]; int gm_k[NPKGS][NNAMES];        /* its method on INTEGER: (+ x k) */
    bool sys;                 /* the fixture system fix-util is loaded (a reset keeps loaded systems), */
    bool sys_listed;          /* and list-definitions shows it (loaded since the last reset) */
} Model;

static void model_reset(Model *m) {
    bool sys = m->sys;
    memset(m, 0, sizeof *m);
    m->pkg_exists[0] = true;
    m->sys = sys;
}

static char fix_util_dir[512];   /* tests/systems/fix-util/, absolute */

static bool have_clos;

/* ---- checkpoints: the model and the definitions listing saved with each (names cp0, cp1) ---- */
#define NCKPT 2
static Model ckpt_model[NCKPT];
static char *ckpt_defs[NCKPT];
static char state_path[64];

/* list-definitions without object addresses ({7F...}): a restored object is a copy */
static char *definitions_text(TclSession *s) {
    TclDefinitions *d = tcl_list_definitions(s, NULL, NULL);
    char *t = strdup(d->text ? d->text : "");
    tcl_definitions_free(d);
    char *w = t;
    for (char *r = t; *r; r++) {
        if (*r == '{') { while (*r && *r != '}') r++; if (!*r) break; continue; }
        *w++ = *r;
    }
    *w = 0;
    return t;
}

static void forget_checkpoints(TclSession *s) {
    for (int k = 0; k < NCKPT; k++) {
        char name[8];
        snprintf(name, sizeof name, "cp%d", k);
        tcl_delete_checkpoint(s, name, NULL);
        free(ckpt_defs[k]);
        ckpt_defs[k] = NULL;
    }
}

/* ---- running one operation ---- */
typedef struct Outcome { bool ok; char why[512]; } Outcome;

static void fail(Outcome *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->why, sizeof o->why, fmt, ap);
    va_end(ap);
    o->ok = false;
}

static const char *first_value(const TclResult *r) { return r->nvalues > 0 ? r->values[0] : "(no value)"; }

static void expect_value(Outcome *o, const TclResult *r, const char *want, const char *code) {
    if (r->status != TCL_OK) fail(o, "%s: expected %s, got error %s: %s", code, want, r->error_type, r->error_message);
    else if (strcmp(first_value(r), want) != 0) fail(o, "%s: expected %s, got %s", code, want, first_value(r));
}

static void expect_error(Outcome *o, const TclResult *r, const char *type, const char *code) {
    if (r->status != TCL_ERROR) fail(o, "%s: expected error %s, got %s", code, type, r->status == TCL_OK ? first_value(r) : "another failure");
    else if (type && strcmp(r->error_type, type) != 0) fail(o, "%s: expected %s, got %s: %s", code, type, r->error_type, r->error_message);
}

static void expect_package(Outcome *o, const TclResult *r, const Model *m, const char *code) {
    if (r->package && strcmp(r->package, pkg_names[m->current]) != 0)
        fail(o, "%s: session package is %s, model says %s", code, r->package, pkg_names[m->current]);
}

static void op_text(const Op *op, char *buf, size_t n) {
    int i = op->name, v = op->value;
    switch (op->kind) {
    case OP_DEFUN: snprintf(buf, n, "(defun prop-f%d (x) (+ x %d))", i, v); break;
    case OP_CALL: snprintf(buf, n, "(prop-f%d %d)", i, v); break;
    case OP_DEFVAR: snprintf(buf, n, "(defvar *prop-v%d* %d)", i, v); break;
    case OP_DEFPARAMETER: snprintf(buf, n, "(defparameter *prop-v%d* %d)", i, v); break;
    case OP_SETF: snprintf(buf, n, "(setf *prop-v%d* %d)", i, v); break;
    case OP_READVAR: snprintf(buf, n, "*prop-v%d*", i); break;
    case OP_DEFMACRO: snprintf(buf, n, "(defmacro prop-m%d (x) (list '* x %d))", i, v); break;
    case OP_USE_MACRO: snprintf(buf, n, "(prop-m%d %d)", i, v); break;
    case OP_DEFPACKAGE: snprintf(buf, n, "(defpackage :%s (:use :cl))", pkg_names[op->pkg]); break;
    case OP_IN_PACKAGE: snprintf(buf, n, "(in-package :%s)", pkg_names[op->pkg]); break;
    case OP_PACKAGE_PARAM: snprintf(buf, n, "(package-name *package*)  ; with package %s", pkg_names[op->pkg]); break;
    case OP_ERROR: snprintf(buf, n, v % 2 ? "(car %d)" : "(error \"prop ~A\" %d)", v); break;
    case OP_RESET: snprintf(buf, n, "<reset>"); break;
    case OP_CHECK_PACKAGE: snprintf(buf, n, "(package-name *package*)"); break;
    case OP_LIST_DEFINITIONS: snprintf(buf, n, "<list-definitions>"); break;
    case OP_DEFCLASS: snprintf(buf, n, "(defclass prop-c%d () ((a :initform %d)))", i, v); break;
    case OP_MAKE_INSTANCE: snprintf(buf, n, "(slot-value (make-instance 'prop-c%d) 'a)", i); break;
    case OP_DEFGENERIC: snprintf(buf, n, "(defgeneric prop-g%d (x))", i); break;
    case OP_DEFMETHOD: snprintf(buf, n, "(defmethod prop-g%d ((x integer)) (+ x %d))", i, v); break;
    case OP_REMOVE_METHOD:
        snprintf(buf, n, "(let* ((gf (fdefinition 'prop-g%d)) (m (find-method gf '() (list (find-class 'integer)) nil)))"
                         " (when m (remove-method gf m)) (not (null m)))", i);
        break;
    case OP_CALL_GENERIC: snprintf(buf, n, "(prop-g%d %d)", i, v); break;
    case OP_LOAD_SYSTEM:
        snprintf(buf, n, "(progn (push #p\"%s\" asdf:*central-registry*) (asdf:load-system :fix-util) t)", fix_util_dir);
        break;
    case OP_USE_SYSTEM: snprintf(buf, n, "(funcall (find-symbol \"DOUBLE\" \"FIX-UTIL\") %d)", v); break;
    case OP_FIND_CLASS: snprintf(buf, n, "(not (null (find-class 'prop-c%d nil)))", i); break;
    case OP_DEFSTRUCT: snprintf(buf, n, "(defstruct prop-s%d (a %d))", i, v); break;
    case OP_USE_STRUCT: snprintf(buf, n, "(prop-s%d-a (make-prop-s%d))", i, i); break;
    case OP_CHECKPOINT: snprintf(buf, n, "<checkpoint cp%d>", i % NCKPT); break;
    case OP_RESTORE: snprintf(buf, n, "<restore cp%d>", i % NCKPT); break;
    case OP_FILE_ROUNDTRIP: snprintf(buf, n, v % 4 ? "<save and load the session file>" : "<save, new interpreter, load>"); break;
    default: snprintf(buf, n, "?"); break;
    }
}

static Outcome run_op(TclSession *s, Model *m, const Op *op) {
    Outcome o = {true, ""};
    char code[768], want[64];
    op_text(op, code, sizeof code);
    int p = m->current, i = op->name, v = op->value;
    TclResult *r = NULL;
    switch (op->kind) {
    case OP_CHECKPOINT: {
        int k = i % NCKPT;
        char name[8], *err = NULL;
        snprintf(name, sizeof name, "cp%d", k);
        if (tcl_checkpoint(s, name, &err) != 0) { fail(&o, "%s: %s", code, err); free(err); return o; }
        ckpt_model[k] = *m;
        free(ckpt_defs[k]);
        ckpt_defs[k] = definitions_text(s);
        return o;
    }
    case OP_RESTORE: {
        int k = i % NCKPT;
        char name[8], *err = NULL;
        snprintf(name, sizeof name, "cp%d", k);
        int rc = tcl_restore(s, name, &err);
        if (!ckpt_defs[k]) {
            if (rc == 0) fail(&o, "%s: restored a checkpoint never taken", code);
            free(err);
            return o;
        }
        if (rc != 0) { fail(&o, "%s: %s", code, err); free(err); return o; }
        *m = ckpt_model[k];
        char *now = definitions_text(s);
        if (strcmp(now, ckpt_defs[k]) != 0) fail(&o, "%s: list-definitions differs:\n%s\n--- at the checkpoint:\n%s", code, now, ckpt_defs[k]);
        free(now);
        r = tcl_eval(s, "(package-name *package*)", NULL, -1);
        break;
    }
    case OP_FILE_ROUNDTRIP: {
        char *before = definitions_text(s), *err = NULL;
        if (tcl_session_file_save(s, state_path, &err) != 0) { fail(&o, "%s: %s", code, err); free(err); free(before); return o; }
        if (v % 4 == 0) tcl_reset(s, true);     /* as a new process would: a fresh interpreter */
        int rc = tcl_session_file_load(s, state_path, &err);
        if (rc != 1) { fail(&o, "%s: load gave %d: %s", code, rc, err ? err : ""); free(err); free(before); return o; }
        char *after = definitions_text(s);
        if (strcmp(after, before) != 0) fail(&o, "%s: list-definitions differs:\n%s\n--- before:\n%s", code, after, before);
        free(after);
        free(before);
        r = tcl_eval(s, "(package-name *package*)", NULL, -1);
        break;
    }
    case OP_RESET:
        tcl_reset(s, false);
        model_reset(m);
        r = tcl_eval(s, "(package-name *package*)", NULL, -1);
        expect_value(&o, r, "\"COMMON-LISP-USER\"", "after reset");
        break;
    case OP_LIST_DEFINITIONS: {
        TclDefinitions *d = tcl_list_definitions(s, NULL, NULL);
        if (d->error_type) { fail(&o, "list-definitions failed: %s %s", d->error_type, d->error_message); tcl_definitions_free(d); return o; }
        bool any = false;
        for (int q = 0; q < NPKGS && o.ok; q++) {
            if (!m->pkg_exists[q]) continue;
            for (int k = 0; k < NNAMES && o.ok; k++) {
                char needle[64];
                const char *pre = q == p ? "" : q == 0 ? "COMMON-LISP-USER::" : (q == 1 ? "PROP-P1::" : "PROP-P2::");
                if (m->fn[q][k]) { any = true; snprintf(needle, sizeof needle, "- %sPROP-F%d (X)", pre, k); if (!strstr(d->text, needle)) fail(&o, "list-definitions lacks %s:\n%s", needle, d->text); }
                if (m->var[q][k]) { any = true; snprintf(needle, sizeof needle, "- %s*PROP-V%d* = %d", pre, k, m->var_v[q][k]); if (o.ok && !strstr(d->text, needle)) fail(&o, "list-definitions lacks %s:\n%s", needle, d->text); }
                if (m->mac[q][k]) { any = true; snprintf(needle, sizeof needle, "- %sPROP-M%d (X)", pre, k); if (o.ok && !strstr(d->text, needle)) fail(&o, "list-definitions lacks %s:\n%s", needle, d->text); }
                if (m->cls[q][k]) { any = true; snprintf(needle, sizeof needle, "- %sPROP-C%d", pre, k); if (o.ok && !strstr(d->text, needle)) fail(&o, "list-definitions lacks %s:\n%s", needle, d->text); }
                if (m->st[q][k]) { any = true; snprintf(needle, sizeof needle, "- %sPROP-S%d", pre, k); if (o.ok && !strstr(d->text, needle)) fail(&o, "list-definitions lacks %s:\n%s", needle, d->text); }
                if (m->gf[q][k]) { any = true; snprintf(needle, sizeof needle, "- %sPROP-G%d (X)", pre, k); if (o.ok && !strstr(d->text, needle)) fail(&o, "list-definitions lacks %s:\n%s", needle, d->text); }
                snprintf(needle, sizeof needle, "- %sPROP-G%d (INTEGER)", pre, k);
                if (o.ok && m->gm[q][k] != (strstr(d->text, needle) != NULL))
                    fail(&o, "list-definitions %s %s:\n%s", m->gm[q][k] ? "lacks" : "still has", needle, d->text);
            }
            if (q > 0) any = true;
        }
        if (o.ok && m->sys_listed) { any = true; if (!strstr(d->text, "- fix-util 1.2.0")) fail(&o, "list-definitions lacks fix-util:\n%s", d->text); }
        if (o.ok && !m->sys_listed && strstr(d->text, "fix-util")) fail(&o, "list-definitions still has fix-util:\n%s", d->text);
        if (o.ok && !any && !strstr(d->text, "No user definitions")) fail(&o, "empty model but list-definitions says:\n%s", d->text);
        if (o.ok && any && strstr(d->text, "No user definitions")) fail(&o, "model has definitions but list-definitions says none");
        tcl_definitions_free(d);
        return o;
    }
    case OP_PACKAGE_PARAM: {
        r = tcl_eval(s, "(package-name *package*)", pkg_names[op->pkg], -1);
        if (m->pkg_exists[op->pkg]) {
            snprintf(want, sizeof want, "\"%s\"", pkg_names[op->pkg]);
            expect_value(&o, r, want, code);
        } else {
            expect_error(&o, r, "PACKAGE-ERROR", code);
        }
        break;
    }
    default:
        r = tcl_eval(s, code, NULL, -1);
        switch (op->kind) {
        case OP_DEFUN:
            snprintf(want, sizeof want, "PROP-F%d", i);
            expect_value(&o, r, want, code);
            m->fn[p][i] = true; m->fn_k[p][i] = v;
            break;
        case OP_CALL:
            if (m->fn[p][i]) { snprintf(want, sizeof want, "%d", v + m->fn_k[p][i]); expect_value(&o, r, want, code); }
            else expect_error(&o, r, "UNDEFINED-FUNCTION", code);
            break;
        case OP_DEFVAR: case OP_DEFPARAMETER:
            snprintf(want, sizeof want, "*PROP-V%d*", i);
            expect_value(&o, r, want, code);
            if (op->kind == OP_DEFPARAMETER || !m->var[p][i]) m->var_v[p][i] = v;
            m->var[p][i] = true;
            break;
        case OP_SETF:
            snprintf(want, sizeof want, "%d", v);
            expect_value(&o, r, want, code);
            m->var[p][i] = true; m->var_v[p][i] = v;
            break;
        case OP_READVAR:
            if (m->var[p][i]) { snprintf(want, sizeof want, "%d", m->var_v[p][i]); expect_value(&o, r, want, code); }
            else expect_error(&o, r, "UNBOUND-VARIABLE", code);
            break;
        case OP_DEFMACRO:
            snprintf(want, sizeof want, "PROP-M%d", i);
            expect_value(&o, r, want, code);
            m->mac[p][i] = true; m->mac_k[p][i] = v;
            break;
        case OP_USE_MACRO:
            if (m->mac[p][i]) { snprintf(want, sizeof want, "%d", v * m->mac_k[p][i]); expect_value(&o, r, want, code); }
            else expect_error(&o, r, "UNDEFINED-FUNCTION", code);
            break;
        case OP_DEFPACKAGE:
            snprintf(want, sizeof want, "#<PACKAGE \"%s\">", pkg_names[op->pkg]);
            expect_value(&o, r, want, code);
            m->pkg_exists[op->pkg] = true;
            break;
        case OP_IN_PACKAGE:
            if (m->pkg_exists[op->pkg]) {
                snprintf(want, sizeof want, "#<PACKAGE \"%s\">", pkg_names[op->pkg]);
                expect_value(&o, r, want, code);
                m->current = op->pkg;
            } else {
                expect_error(&o, r, "PACKAGE-ERROR", code);
            }
            break;
        case OP_ERROR:
            expect_error(&o, r, v % 2 ? "TYPE-ERROR" : "SIMPLE-ERROR", code);
            break;
        case OP_CHECK_PACKAGE:
            snprintf(want, sizeof want, "\"%s\"", pkg_names[m->current]);
            expect_value(&o, r, want, code);
            break;
        case OP_DEFCLASS:
            if (r->status != TCL_OK) fail(&o, "%s: error %s %s", code, r->error_type, r->error_message);
            m->cls[p][i] = true;
            m->cls_v[p][i] = v;
            break;
        case OP_MAKE_INSTANCE:
            if (m->cls[p][i]) { snprintf(want, sizeof want, "%d", m->cls_v[p][i]); expect_value(&o, r, want, code); }
            else expect_error(&o, r, NULL, code);
            break;
        case OP_DEFGENERIC:
            if (r->status != TCL_OK) fail(&o, "%s: error %s %s", code, r->error_type, r->error_message);
            m->gf[p][i] = true;
            break;
        case OP_DEFMETHOD:
            if (r->status != TCL_OK) fail(&o, "%s: error %s %s", code, r->error_type, r->error_message);
            m->gf[p][i] = m->gm[p][i] = true;
            m->gm_k[p][i] = v;
            break;
        case OP_REMOVE_METHOD:
            if (!m->gf[p][i]) { expect_error(&o, r, "UNDEFINED-FUNCTION", code); break; }
            expect_value(&o, r, m->gm[p][i] ? "T" : "NIL", code);
            m->gm[p][i] = false;
            break;
        case OP_CALL_GENERIC:
            if (!m->gf[p][i]) expect_error(&o, r, "UNDEFINED-FUNCTION", code);
            else if (!m->gm[p][i]) expect_error(&o, r, NULL, code);    /* no applicable method */
            else { snprintf(want, sizeof want, "%d", v + m->gm_k[p][i]); expect_value(&o, r, want, code); }
            break;
        case OP_LOAD_SYSTEM:
            expect_value(&o, r, "T", code);
            m->sys = m->sys_listed = true;
            break;
        case OP_USE_SYSTEM:
            if (m->sys) { snprintf(want, sizeof want, "%d", 2 * v); expect_value(&o, r, want, code); }
            else expect_error(&o, r, NULL, code);
            break;
        case OP_FIND_CLASS:
            expect_value(&o, r, m->cls[p][i] ? "T" : "NIL", code);
            break;
        case OP_DEFSTRUCT:
            snprintf(want, sizeof want, "PROP-S%d", i);
            expect_value(&o, r, want, code);
            m->st[p][i] = true;
            m->st_v[p][i] = v;
            break;
        case OP_USE_STRUCT:
            if (m->st[p][i]) { snprintf(want, sizeof want, "%d", m->st_v[p][i]); expect_value(&o, r, want, code); }
            else expect_error(&o, r, "UNDEFINED-FUNCTION", code);
            break;
        default: break;
        }
    }
    if (o.ok && r) expect_package(&o, r, m, code);
    tcl_result_free(r);
    return o;
}

static void random_op(Op *op) {
    for (;;) {
        op->kind = (OpKind)rnd(OP_COUNT);
        if (!have_clos && (op->kind == OP_DEFCLASS || op->kind == OP_FIND_CLASS || op->kind == OP_DEFSTRUCT || op->kind == OP_USE_STRUCT ||
                           op->kind == OP_MAKE_INSTANCE || (op->kind >= OP_DEFGENERIC && op->kind <= OP_CALL_GENERIC)))
            continue;
        if (op->kind == OP_LOAD_SYSTEM && rnd(3)) continue;   /* a load reads two files */
        if (op->kind == OP_RESET && rnd(3)) continue;   /* resets are rarer */
        /* a checkpoint, a restore or a file round trip copies the whole state (milliseconds each):
         * rarer, so that the default thousand histories stay within make test's time */
        if ((op->kind == OP_CHECKPOINT || op->kind == OP_RESTORE) && rnd(2)) continue;
        if (op->kind == OP_FILE_ROUNDTRIP && rnd(6)) continue;
        break;
    }
    op->name = (int)rnd(NNAMES);
    op->value = (int)rnd(100);
    op->pkg = (int)rnd(NPKGS);
}

/* Run a whole history on SESSION from a fresh model; returns the index of the failing op or -1. */
static int run_history(TclSession *s, const Op *ops, int n, Outcome *out) {
    Model m;
    tcl_reset(s, false);
    forget_checkpoints(s);
    /* a reset keeps loaded systems: the model starts from what the session has */
    TclResult *r = tcl_eval(s, "(not (null (find-package \"FIX-UTIL\")))", NULL, -1);
    m.sys = r->status == TCL_OK && r->nvalues && strcmp(r->values[0], "T") == 0;
    tcl_result_free(r);
    model_reset(&m);
    for (int k = 0; k < n; k++) {
        Outcome o = run_op(s, &m, &ops[k]);
        if (!o.ok) { *out = o; return k; }
    }
    return -1;
}

/* Shrink: drop operations one at a time while the history still fails (on a fresh session). */
static int shrink(const Op *ops, int n, Op *best, Outcome *why) {
    memcpy(best, ops, sizeof(Op) * (size_t)n);
    TclOptions opt = {0};
    opt.capture_output = true;
    TclSession *s = tcl_session_new(&opt);
    bool progress = true;
    while (progress) {
        progress = false;
        for (int k = 0; k < n; k++) {
            Op trial[256];
            int t = 0;
            for (int j = 0; j < n; j++) if (j != k) trial[t++] = best[j];
            Outcome o;
            int at = run_history(s, trial, t, &o);
            if (at >= 0) {
                n = at + 1;
                memcpy(best, trial, sizeof(Op) * (size_t)n);
                *why = o;
                progress = true;
                break;
            }
        }
    }
    tcl_session_free(s);
    return n;
}

typedef struct Args { int sequences; unsigned long long seed; int result; } Args;

/* Sessions boot from an image this program writes, as build/tinycl's do: a checkpoint then copies
 * what the histories made, not the whole booted library (which lives in the image's heap). */
static unsigned char *boot_image;

static void use_boot_image(void) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/tinycl-prop-image-%ld", (long)getpid());
    if (tcl_write_boot_image(path) != 0) { fprintf(stderr, "could not write a boot image: booting from source\n"); return; }
    FILE *f = fopen(path, "rb");
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len > 0 && fseek(f, 0, SEEK_SET) == 0 && (boot_image = (unsigned char *)malloc((size_t)len)) &&
        fread(boot_image, 1, (size_t)len, f) == (size_t)len)
        bootimage_use(boot_image, (size_t)len);
    if (f) fclose(f);
    remove(path);
}

static int run(void *p) {
    Args *a = (Args *)p;
    use_boot_image();
    if (!getcwd(fix_util_dir, sizeof fix_util_dir - 32)) strcpy(fix_util_dir, ".");
    strcat(fix_util_dir, "/tests/systems/fix-util/");
    TclOptions opt = {0};
    opt.capture_output = true;
    TclSession *s = tcl_session_new(&opt);
    if (!s) { fprintf(stderr, "could not create a session\n"); return 2; }
    TclResult *probe = tcl_eval(s, "(and (macro-function 'defclass) (macro-function 'defstruct) t)", NULL, -1);
    have_clos = probe->status == TCL_OK && probe->nvalues && strcmp(probe->values[0], "T") == 0;
    tcl_result_free(probe);
    snprintf(state_path, sizeof state_path, "/tmp/tinycl-prop-%ld.state", (long)getpid());
    int passed = 0, failed = 0;
    for (int seq = 0; seq < a->sequences; seq++) {
        rng_state = a->seed * 6364136223846793005ULL + (unsigned long long)seq * 1442695040888963407ULL + 1;
        Op ops[256];
        int n = 5 + (int)rnd(30);
        for (int k = 0; k < n; k++) random_op(&ops[k]);
        Outcome o;
        int at = run_history(s, ops, n, &o);
        if (at < 0) { passed++; continue; }
        failed++;
        printf("FAIL sequence %d (seed %llu): step %d: %s\n", seq, a->seed, at, o.why);
        Op small[256];
        Outcome why = o;
        int m = shrink(ops, at + 1, small, &why);
        printf("  shrunk to %d steps:\n", m);
        for (int k = 0; k < m; k++) {
            char code[768];
            op_text(&small[k], code, sizeof code);
            printf("    %d: %s\n", k, code);
        }
        printf("  failure: %s\n", why.why);
        if (failed >= 3) break;
    }
    tcl_session_free(s);
    remove(state_path);
    printf("property session: %d passed, %d failed (seed %llu%s)\n", passed, failed, a->seed, have_clos ? "" : ", without CLOS operations");
    printf("%d passed, %d failed\n", passed, failed);
    a->result = failed ? 1 : 0;
    return a->result;
}

int main(int argc, char **argv) {
    Args a = {1000, (unsigned long long)time(NULL), 0};
    if (argc > 1) a.sequences = atoi(argv[1]);
    if (argc > 2) a.seed = strtoull(argv[2], NULL, 10);
    const char *env = getenv("PROPERTY_SEED");
    if (env && *env) a.seed = strtoull(env, NULL, 10);
    return tcl_run_with_big_stack(run, &a);
}
