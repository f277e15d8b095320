/* gen-abi.c: build tool: writes the Lisp side of runtime/lisp-abi.def, the accessor macros
 * stdlib-lisp uses instead of literal slot indices.
 *
 * For each layout slot it makes (%<prefix>.<slot> obj) and (%set-<prefix>.<slot> obj value),
 * macros that expand to %INSTANCE-REF / %INSTANCE-SET with the index, so the analyser sees
 * exactly the call it saw when the index was written by hand (no cost at run time). For each
 * layout also (%<prefix>.nslots) and (%<prefix>.slot-names); for each constant (%<group>.<name>).
 * Usage: gen-abi OUT.lisp */
#include <stdio.h>

typedef enum { ROW_LAYOUT, ROW_SLOT, ROW_END } RowKind;
typedef struct Row { RowKind kind; const char *lisp; } Row;

static const Row rows[] = {
#define ABI_LAYOUT(id, lisp) {ROW_LAYOUT, lisp},
#define ABI_SLOT(id, cname, lisp) {ROW_SLOT, lisp},
#define ABI_END(id, cnslots) {ROW_END, NULL},
#include "../runtime/lisp-abi.def"
};

typedef struct Const { const char *group, *lisp; long value; } Const;

static const Const consts[] = {
#define ABI_CONST(group, cname, lisp, value) {group, lisp, value},
#include "../runtime/lisp-abi.def"
};

/* One expander per kind, shared by every accessor; the index or value sits on the symbol's plist.
 * (Some 150 DEFMACROs would each be analysed and allocated at every boot: about 7% more
 * boot work, measured with callgrind; this costs one property per name.) */
static const char prologue[] =
    ";;;; lisp-abi.lisp: GENERATED from runtime/lisp-abi.def by tools/gen-abi.c; do not edit.\n"
    ";;;; The object layouts and constants C and Lisp share, as macros (see docs/internals.md):\n"
    ";;;; (%<layout>.<slot> obj) expands to (%instance-ref obj <index>), (%set-<layout>.<slot> obj v)\n"
    ";;;; to (%instance-set obj <index> v), and (%<group>.<name>) to its constant.\n\n"
    "(in-package \"SYSTEM\")\n\n"
    "(let ((reader #'(lambda (form env)\n"
    "                  (declare (ignore env))\n"
    "                  (if (not (and (consp (cdr form)) (null (cddr form))))\n"
    "                      (error \"~S takes one argument: ~S\" (car form) form))\n"
    "                  (list '%instance-ref (cadr form) (get (car form) '%abi-index))))\n"
    "      (writer #'(lambda (form env)\n"
    "                  (declare (ignore env))\n"
    "                  (if (not (and (consp (cdr form)) (consp (cddr form)) (null (cdddr form))))\n"
    "                      (error \"~S takes two arguments: ~S\" (car form) form))\n"
    "                  (list '%instance-set (cadr form) (get (car form) '%abi-index) (caddr form))))\n"
    "      (constant #'(lambda (form env)\n"
    "                    (declare (ignore env))\n"
    "                    (if (cdr form) (error \"~S takes no arguments: ~S\" (car form) form))\n"
    "                    (get (car form) '%abi-value))))\n"
    "  ;; (reader-name writer-name index)\n"
    "  (dolist (row '(\n";

static const char middle[] =
    "                 ))\n"
    "    (%put (car row) '%abi-index (caddr row))\n"
    "    (%put (cadr row) '%abi-index (caddr row))\n"
    "    (%set-macro-function (car row) reader)\n"
    "    (%set-macro-function (cadr row) writer))\n"
    "  ;; (name expansion)\n"
    "  (dolist (row '(\n";

static const char epilogue[] =
    "                 ))\n"
    "    (%put (car row) '%abi-value (cadr row))\n"
    "    (%set-macro-function (car row) constant)))\n";

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gen-abi OUT.lisp\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) { perror(argv[1]); return 1; }
    fputs(prologue, out);
    const char *prefix = NULL;
    size_t index = 0;
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const Row *r = &rows[i];
        if (r->kind == ROW_LAYOUT) prefix = r->lisp, index = 0;
        else if (r->kind == ROW_SLOT)
            fprintf(out, "                 (%%%s.%s %%set-%s.%s %zu)\n", prefix, r->lisp, prefix, r->lisp, index++);
    }
    fputs(middle, out);
    for (size_t i = 0; i < sizeof consts / sizeof *consts; i++)
        fprintf(out, "                 (%%%s.%s %ld)\n", consts[i].group, consts[i].lisp, consts[i].value);
    size_t first = 0;
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const Row *r = &rows[i];
        if (r->kind == ROW_LAYOUT) prefix = r->lisp, first = i + 1;
        else if (r->kind == ROW_END) {
            fprintf(out, "                 (%%%s.nslots %zu)\n", prefix, i - first);
            fprintf(out, "                 (%%%s.slot-names '(", prefix);
            for (size_t k = first; k < i; k++) fprintf(out, "%s%s", k > first ? " " : "", rows[k].lisp);
            fputs("))\n", out);
        }
    }
    fputs(epilogue, out);
    if (fclose(out) != 0) { perror(argv[1]); return 1; }
    return 0;
}
