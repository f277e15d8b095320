/* load.c: loading source: the embedded stdlib at boot and LOAD of files. */
#include "prim.h"
#include "modules.h"
#include "eval.h"
#include "reader.h"
#include "stream.h"
#include "lstring.h"
#include "package.h"
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#define EOF_VALUE OBJ(0x906)

/* Read and evaluate each form of STREAM with *package* and *readtable* rebound. */
static Obj load_stream(Lisp *L, Obj stream, bool print) {
    size_t sp = L->special_sp;
    bind_special(L, S(PACKAGE_VAR), SYM(S(PACKAGE_VAR))->value);
    bind_special(L, S(READTABLE_VAR), SYM(S(READTABLE_VAR))->value);
    for (;;) {
        Obj form = reader_read(L, stream, false, EOF_VALUE, false, false);
        if (form == EOF_VALUE) break;
        Obj v = lisp_eval(L, form);
        if (print) {
            Obj out = stream_out(L, NIL);
            stream_write_cstr(L, out, "; ");
            funcall1(L, intern_cstr(L, L->pkg_cl, "PRIN1"), v);
            stream_terpri(L, out);
        }
    }
    unbind_specials(L, sp);
    return S(T);
}

void load_source_text(Lisp *L, const char *name, const char *text, size_t len) {
    Obj str = string_from_utf8(L, text, len);
    Obj stream = make_string_input_stream(L, str, 0, STR(str)->len);
    size_t sp = L->special_sp;
    bind_special(L, S(P_SOURCE_FILE), string_from_cstr(L, name));
    load_stream(L, stream, false);
    unbind_specials(L, sp);
}

/* (sys:%load-file namestring verbose print if-does-not-exist) */
DEFPRIM(prim_pct_load_file) {
    UNUSED_ARGS;
    Obj path = check_string(L, args[0]);
    char *cpath = string_to_utf8(L, path, NULL);
    int fd = open(cpath, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (args[3] == NIL) return NIL;
        err_file(L, path, "Couldn't load %S: %s", path, strerror(errno));
    }
    Obj stream = make_fd_stream(L, fd, ST_INPUT | ST_FILE | ST_OWN_FD, path);
    size_t sp = L->special_sp;
    bind_special(L, S(LOAD_PATHNAME), path);
    bind_special(L, S(LOAD_TRUENAME), path);
    bind_special(L, S(P_SOURCE_FILE), path);
    if (args[1] != NIL) {
        Obj out = stream_out(L, NIL);
        stream_write_cstr(L, out, "; loading ");
        funcall1(L, intern_cstr(L, L->pkg_cl, "PRIN1"), path);
        stream_terpri(L, out);
    }
    Frame fr;
    FRAME_PUSH(L, &fr, FR_UNWIND_PROTECT, NIL);
    if (FRAME_SETJMP(&fr)) {
        Frame *target = L->unwind_target;
        int code = L->unwind_code;
        frame_pop(L, &fr);
        stream_close(L, stream, true);
        unwind_continue(L, target, code);
    }
    load_stream(L, stream, args[2] != NIL);
    frame_pop(L, &fr);
    stream_close(L, stream, false);
    unbind_specials(L, sp);
    return S(T);
}

static const PrimDef load_prims[] = {
    {"%LOAD-FILE", PK_SYS, prim_pct_load_file, 4, 4, 0, "(namestring verbose print if-does-not-exist)", NULL},
    {0},
};

void load_init(Lisp *L) { prims_register(L, load_prims); }
