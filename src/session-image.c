/* session-image.c: the embedding API's side of the boot image (runtime/bootimage.c). */
#include "tinycl.h"
#include "bootimage.h"
#include "bootlayout.h"
#include "image.h"
#include "gc.h"
#include "eval.h"
#include "control.h"
#include "package.h"
#include "snapshot.h"
#include "session.h"
#include <stdio.h>

/* The hooks of warm_up, run under a protected call, and the evaluation of one form (NIL) the
 * way a session evaluates each form. */
static void warm_up_step(Lisp *L, void *ud) {
    Obj *hooks = (Obj *)ud;
    funcall0(L, hooks[0]);
    funcall0(L, hooks[1]);
    funcall1(L, hooks[2], NIL);
}

/* Every session runs the registries' snapshot hooks when it starts and their restorers at each
 * reset, and evaluates each form through SYS:%SESSION-EVAL; the stdlib's functions are analysed on
 * their first call, so calling these once here puts them in the image analysed, and no session
 * pays for it. The state they leave is the state before. */
static void warm_up(Lisp *L) {
    Obj snapshot = intern_cstr(L, L->pkg_system, "%SESSION-SNAPSHOT");
    Obj reset = intern_cstr(L, L->pkg_system, "%SESSION-RESET");
    Obj restorers = intern_cstr(L, L->pkg_system, "*SESSION-RESTORERS*");
    Obj eval = S(P_SESSION_EVAL);
    if (!is_function(SYM(snapshot)->function) || !is_function(SYM(reset)->function) ||
        !is_function(SYM(eval)->function))
        return;
    Obj before = SYM(restorers)->value;
    Obj hooks[3] = {SYM(snapshot)->function, SYM(reset)->function, SYM(eval)->function};
    lisp_pcall(L, FR_TOPLEVEL, warm_up_step, hooks);   /* a failure only costs the warm-up */
    SYM(restorers)->value = before;
}

static void restorers_step(Lisp *L, void *ud) { funcall0(L, *(Obj *)ud); }

/* The registries' restorers (SYS:%SESSION-SNAPSHOT copies the class table, the cross-reference,
 * the CLOS method lists...) made once here: a session that starts from the image finds the
 * registries as they are now, nothing having run in between, so it takes these instead of making
 * its own (session.c, snapshot_step). */
static void image_restorers(Lisp *L) {
    Obj snapshot = intern_cstr(L, L->pkg_system, "%SESSION-SNAPSHOT");
    Obj restorers = intern_cstr(L, L->pkg_system, "*SESSION-RESTORERS*");
    Obj hook = SYM(snapshot)->function;
    if (!is_function(hook)) return;
    Obj before = SYM(restorers)->value;
    if (lisp_pcall(L, FR_TOPLEVEL, restorers_step, &hook) == 0) L->image_restorers = SYM(restorers)->value;
    SYM(restorers)->value = before;
}

void tcl_boot_from_source(bool on) { bootimage_set_source_boot(on); }

int tcl_write_boot_image(const char *path) {
    session_declare_tables();
    bootimage_set_source_boot(true);
    Lisp *L = lisp_new(NULL);
    bootimage_set_source_boot(false);
    if (!L) return -1;
    char err[IMAGE_ERRLEN];
    gc_current = L;
    warm_up(L);
    bootlayout_prepare(L);
    image_restorers(L);
    /* the base every session's start-up snapshot shares what is unchanged with (snapshot.c) */
    L->image_snapshot = snapshot_take_base(L);
    if (bootimage_write(L, path, err) != 0) {
        fprintf(stderr, "tinycl: cannot write the boot image: %s\n", err);
        lisp_free(L);
        return -1;
    }
    ImageStats st = image_last_stats;
    fprintf(stderr, "boot image %s: %zu KiB with pointers + %zu KiB without, %zu blocks, %zu relocations, %zu hash tables\n",
            path, st.scanned_bytes >> 10, st.atomic_bytes >> 10, st.blocks, st.relocations, st.tables);
    lisp_free(L);
    return 0;
}
