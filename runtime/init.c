/* init.c: booting an interpreter: standard packages, well-known symbols, primitives, the Lisp stdlib. */
#include "weak.h"
#include "prim.h"
#include "package.h"
#include "lstring.h"
#include "eval.h"
#include "modules.h"
#include "docs.h"
#include "bootimage.h"
#include "image.h"
#include "abi.h"
#include "ticker.h"
#include "thread.h"
#define GC_THREADS
#include <gc/gc.h>
#include <stdlib.h>

static const char *const cl_symbol_names[] = {
#include "cl-symbols.def"
};

static const struct { const char *pkg; const char *name; } well_known[] = {
#define X(c, p, n) {#p, n},
#include "symbols.def"
#undef X
};

static Obj make_pkg(Lisp *L, const char *name, const char *nick1, const char *nick2) {
    Obj nicks = NIL;
    if (nick2) nicks = cons(L, string_from_cstr(L, nick2), nicks);
    if (nick1) nicks = cons(L, string_from_cstr(L, nick1), nicks);
    return package_new(L, string_from_cstr(L, name), nicks);
}

static void boot_packages(Lisp *L) {
    L->packages = NIL;
    L->pkg_cl = make_pkg(L, "COMMON-LISP", "CL", NULL);
    L->pkg_keyword = make_pkg(L, "KEYWORD", NULL, NULL);
    L->pkg_system = make_pkg(L, "SYSTEM", "SYS", NULL);
    L->pkg_ext = make_pkg(L, "TINYCL", "EXT", NULL);
    L->pkg_cl_user = make_pkg(L, "COMMON-LISP-USER", "CL-USER", NULL);
    package_use(L, L->pkg_system, L->pkg_cl);
    package_use(L, L->pkg_system, L->pkg_ext);
    package_use(L, L->pkg_ext, L->pkg_cl);
    package_use(L, L->pkg_cl_user, L->pkg_cl);
    package_use(L, L->pkg_cl_user, L->pkg_ext);
}

static void boot_symbols(Lisp *L) {
    /* NIL: an immediate whose symbol data lives in L */
    Symbol *n = &L->nil_sym;
    n->h.type = T_SYMBOL;
    n->h.flags = SYM_CONSTANT | SYM_SPECIAL;
    n->name = string_from_cstr(L, "NIL");
    n->package = L->pkg_cl;
    n->value = NIL;
    n->function = UNBOUND;
    n->plist = NIL;
    n->setf_function = UNBOUND;
    n->hash = string_hash_u32(STR(n->name)->data, 3);
    package_add_symbol(L, L->pkg_cl, NIL, true);
    for (size_t i = 0; i < sizeof cl_symbol_names / sizeof *cl_symbol_names; i++) {
        if (strcmp(cl_symbol_names[i], "NIL") == 0) continue;
        Obj s = intern_cstr(L, L->pkg_cl, cl_symbol_names[i]);
        package_export(L, L->pkg_cl, s);
    }
    for (int i = 0; i < SY_COUNT; i++) {
        const char *p = well_known[i].pkg;
        Obj pkg = strcmp(p, "CL") == 0 ? L->pkg_cl : strcmp(p, "KW") == 0 ? L->pkg_keyword
                : strcmp(p, "EXT") == 0 ? L->pkg_ext : L->pkg_system;
        Obj s = intern_cstr(L, pkg, well_known[i].name);
        if (pkg == L->pkg_cl || pkg == L->pkg_ext) package_export(L, pkg, s);
        L->syms[i] = s;
    }
    Symbol *t = SYM(S(T));
    t->value = S(T);
    t->h.flags |= SYM_CONSTANT | SYM_SPECIAL;
}

static void defvar_c(Lisp *L, Obj sym, Obj value) {
    (void)L;
    SYM(sym)->h.flags |= SYM_SPECIAL;
    if (value != NO_VALUE) SYM(sym)->value = value;
}

static void boot_variables(Lisp *L) {
    Obj k10 = FIX(10);
    defvar_c(L, S(PACKAGE_VAR), L->pkg_cl_user);
    defvar_c(L, S(PRINT_ESCAPE), S(T));
    defvar_c(L, S(PRINT_READABLY), NIL);
    defvar_c(L, S(PRINT_BASE), k10);
    defvar_c(L, S(PRINT_RADIX), NIL);
    defvar_c(L, S(PRINT_CASE), S(K_UPCASE));
    defvar_c(L, S(PRINT_LENGTH), NIL);
    defvar_c(L, S(PRINT_LEVEL), NIL);
    defvar_c(L, S(PRINT_CIRCLE), NIL);
    defvar_c(L, S(PRINT_PRETTY), NIL);
    defvar_c(L, S(PRINT_GENSYM), S(T));
    defvar_c(L, S(PRINT_ARRAY), S(T));
    defvar_c(L, S(PRINT_LINES), NIL);
    defvar_c(L, S(PRINT_RIGHT_MARGIN), NIL);
    defvar_c(L, S(PRINT_MISER_WIDTH), NIL);
    defvar_c(L, S(PRINT_PPRINT_DISPATCH), NIL);
    defvar_c(L, S(READ_BASE), k10);
    defvar_c(L, S(READ_DEFAULT_FLOAT_FORMAT), S(SINGLE_FLOAT));
    defvar_c(L, S(READ_EVAL), S(T));
    defvar_c(L, S(READ_SUPPRESS), NIL);
    defvar_c(L, S(GENSYM_COUNTER), FIX(1));
    defvar_c(L, S(MACROEXPAND_HOOK), S(FUNCALL));
    defvar_c(L, S(LOAD_PATHNAME), NIL);
    defvar_c(L, S(LOAD_TRUENAME), NIL);
    defvar_c(L, S(LOAD_VERBOSE), NIL);
    defvar_c(L, S(LOAD_PRINT), NIL);
    defvar_c(L, S(COMPILE_FILE_PATHNAME), NIL);
    defvar_c(L, S(COMPILE_FILE_TRUENAME), NIL);
    defvar_c(L, S(COMPILE_PRINT), NIL);
    defvar_c(L, S(COMPILE_VERBOSE), NIL);
    defvar_c(L, S(BREAK_ON_SIGNALS), NIL);
    defvar_c(L, S(DEBUGGER_HOOK), NIL);
    defvar_c(L, S(P_HANDLER_CLUSTERS), NIL);
    defvar_c(L, S(P_RESTART_CLUSTERS), NIL);
    defvar_c(L, S(P_SOURCE_FILE), NIL);
    defvar_c(L, S(P_DEFINITION_HOOK), NIL);
    Obj repl_vars[] = {S(REPL_PLUS), S(REPL_PLUS2), S(REPL_PLUS3), S(REPL_STAR), S(REPL_STAR2), S(REPL_STAR3),
                       S(REPL_SLASH), S(REPL_SLASH2), S(REPL_SLASH3), S(REPL_MINUS)};
    for (size_t i = 0; i < sizeof repl_vars / sizeof *repl_vars; i++) defvar_c(L, repl_vars[i], NIL);
    Obj features = NIL;
    const char *feats[] = {"TINYCL", "COMMON-LISP", "ANSI-CL", "64-BIT", "LITTLE-ENDIAN", "X86-64", "UNIX", "LINUX", "IEEE-FLOATING-POINT"};
    for (int i = (int)(sizeof feats / sizeof *feats) - 1; i >= 0; i--) features = cons(L, keyword(L, feats[i]), features);
    defvar_c(L, S(FEATURES), features);
}

/* documentation of the variables set up by boot_symbols and boot_variables (docs.h) */
const DocRow init_variable_docs[] = {
    {"T", "The constant T, the canonical true value; every object other than NIL counts as true."},
    {"NIL", "The constant NIL: false, and also the empty list."},
    {"*PACKAGE*", "The current package, where the reader interns symbols it reads and the printer decides which symbols need a package prefix."},
    {"*PRINT-ESCAPE*", "When true (the default), the printer writes objects so that READ can read them back, with quotes and escapes; PRINC binds it to NIL."},
    {"*PRINT-READABLY*", "When true, the printer either prints an object so that it reads back as a similar object or signals PRINT-NOT-READABLE."},
    {"*PRINT-BASE*", "The radix, from 2 to 36, in which the printer writes rational numbers; 10 by default."},
    {"*PRINT-RADIX*", "When true, the printer marks rationals with their radix (#x, #b, #o, #NNr, or a trailing dot for decimal integers)."},
    {"*PRINT-CASE*", "How the printer writes the upper-case letters of symbol names: :UPCASE, :DOWNCASE or :CAPITALIZE."},
    {"*PRINT-LENGTH*", "How many elements of each list or vector the printer shows before writing ..., or NIL for no limit."},
    {"*PRINT-LEVEL*", "How deeply nested lists and vectors the printer shows before writing #, or NIL for no limit."},
    {"*PRINT-CIRCLE*", "When true, the printer detects shared and circular structure and writes it with #n= and #n# labels."},
    {"*PRINT-PRETTY*", "When true, the printer lays output out with the pretty printer, breaking lines and indenting."},
    {"*PRINT-GENSYM*", "When true (the default), uninterned symbols are printed with a #: prefix."},
    {"*PRINT-ARRAY*", "When true (the default), arrays other than strings are printed with their contents; otherwise in #<...> form."},
    {"*PRINT-LINES*", "The most lines the pretty printer writes for one object before ending with .., or NIL for no limit."},
    {"*PRINT-RIGHT-MARGIN*", "The line width the pretty printer fills up to, or NIL for the default width."},
    {"*PRINT-MISER-WIDTH*", "When the room left on a line is at most this many columns, the pretty printer switches to its compact miser style; NIL turns that off."},
    {"*PRINT-PPRINT-DISPATCH*", "The pprint dispatch table the pretty printer uses to choose how to print each object."},
    {"*READ-BASE*", "The radix, from 2 to 36, in which the reader reads integers and ratios; 10 by default."},
    {"*READ-DEFAULT-FLOAT-FORMAT*", "The float type the reader gives to numbers without an exponent marker (or with E), and that the printer leaves unmarked; SINGLE-FLOAT by default."},
    {"*READ-EVAL*", "When true (the default), the reader evaluates #. forms; when NIL, #. signals a READER-ERROR."},
    {"*READ-SUPPRESS*", "When true, the reader reads and discards objects without interpreting tokens, as #+ and #- need for skipped forms."},
    {"*GENSYM-COUNTER*", "The number GENSYM appends to the next symbol it makes; incremented by each call."},
    {"*MACROEXPAND-HOOK*", "The function called to run each macro expander, with the expander, the form and the environment; FUNCALL by default."},
    {"*LOAD-PATHNAME*", "While LOAD is loading a file, the pathname it was given, merged with the defaults; otherwise NIL."},
    {"*LOAD-TRUENAME*", "While LOAD is loading a file, the file's truename; otherwise NIL."},
    {"*LOAD-VERBOSE*", "The default of LOAD's :VERBOSE argument: whether LOAD reports each file it loads."},
    {"*LOAD-PRINT*", "The default of LOAD's :PRINT argument: whether LOAD prints the value of each form it loads."},
    {"*COMPILE-FILE-PATHNAME*", "While COMPILE-FILE runs, the pathname of the file being compiled; otherwise NIL."},
    {"*COMPILE-FILE-TRUENAME*", "While COMPILE-FILE runs, the truename of the file being compiled; otherwise NIL."},
    {"*COMPILE-PRINT*", "The default of COMPILE-FILE's :PRINT argument."},
    {"*COMPILE-VERBOSE*", "The default of COMPILE-FILE's :VERBOSE argument: whether COMPILE-FILE reports the file it compiles."},
    {"*BREAK-ON-SIGNALS*", "A type: a condition of this type that is signalled enters the debugger before any handler runs. NIL by default."},
    {"*DEBUGGER-HOOK*", "NIL, or a function that INVOKE-DEBUGGER calls with the condition and the hook itself before entering the debugger; it is bound to NIL during the call."},
    {"+", "The REPL's last form read; + is also the addition function."},
    {"++", "The REPL's form read before +."},
    {"+++", "The REPL's form read before ++."},
    {"*", "The REPL's primary value of the last form evaluated; * is also the multiplication function."},
    {"**", "The REPL's value of * before the last form."},
    {"***", "The REPL's value of ** before the last form."},
    {"/", "The list of all the values of the REPL's last form; / is also the division function."},
    {"//", "The REPL's value of / before the last form."},
    {"///", "The REPL's value of // before the last form."},
    {"-", "The form the REPL is evaluating at the moment; - is also the subtraction function."},
    {"*FEATURES*", "A list of keywords naming the features of this Lisp (such as :TINYCL, :COMMON-LISP and :UNIX), tested by the #+ and #- reader conditionals."},
    {0},
};

static void (*const module_inits[])(Lisp *) = {
#define MODULE(name) name##_init,
    RUNTIME_MODULES(MODULE)
#undef MODULE
};

/* The stdlib sources, generated at build time from stdlib-lisp/MANIFEST. */
typedef struct StdlibFile { const char *name; const char *text; size_t len; } StdlibFile;
extern const StdlibFile stdlib_files[];
extern const int stdlib_count;

static void load_stdlib(Lisp *L, void *ud) {
    (void)ud;
    for (int i = 0; i < stdlib_count; i++)
        load_source_text(L, stdlib_files[i].name, stdlib_files[i].text, stdlib_files[i].len);
}

/* The fields every new interpreter starts with, before its boot. */
static void lisp_setup(Lisp *L, const Config *cfg) {
    memset(L, 0, sizeof *L);
    if (cfg) L->cfg = *cfg;
    else config_defaults(&L->cfg);
    gc_set_max_heap(L, L->cfg.max_heap);
    lisp_set_stack_limits(L);
    L->nvals = 1;
    L->last_error = NIL;
    L->session_warnings = NIL;
    L->form_file = NIL;
    L->system_packages = NIL;
    L->last_backtrace = NIL;
    L->pkg_journal = NIL;
}

/* The boot from the stdlib sources: what the build runs once to write the boot image. */
static void force_step(Lisp *L, void *ud) { lambda_force(L, (Lambda *)ud); }

static void force_function(Lisp *L, Obj fn) {
    if (!is_type(fn, T_CLOSURE) || CLOSURE(fn)->lambda->lazy != LAZY_PENDING) return;
    lisp_pcall(L, FR_TOPLEVEL, force_step, CLOSURE(fn)->lambda);   /* a failure leaves it lazy */
}

static void force_symbol(Lisp *L, Obj sym, void *ud) {
    (void)ud;
    Symbol *s = symbol_data(L, sym);
    force_function(L, s->function);
    force_function(L, s->setf_function);
}

/* The functions of the SYSTEM package (CL's among them: SYSTEM uses CL) the loader calls on every
 * system load, from source or from its cache, whatever the system holds: LOAD, the compiled-file
 * reader, CLOS's instance making for its component objects, documentation. Found with a breakpoint on lambda_force while
 * alexandria and cl-ppcre loaded, keeping those both paths analysed (not the macros a library's
 * own code uses); a name not found is skipped. */
static const char *const loader_calls[] = {
    "LOAD", "%LOAD-SOURCE-FILE", "%LOAD-FROM-STREAM", "%LOAD-COMPILED-FILE", "%FASL-XREF-ITEM-P", "%PROBE-SOURCE",
    "%CALL-WITH-COMPILATION-UNIT", "%PACKAGE-ITERATOR-ENTRIES", "FLOOR-BOOT",
    "%MAKE-STANDARD-INSTANCE", "%SHARED-INITIALIZE", "%CHECK-INITARGS", "%CHECK-INITARGS-PLIST", "%VALID-INITARGS",
    "%ADD-DEFAULT-INITARGS", "%CLASS-DEFAULT-INITARGS", "%CLASS-PROTOTYPE", "%CLASS-SUBTYPEP", "%CLASS-NAME-P",
    "%STANDARD-PATH-P", "%STANDARD-METHODS-P", "%STANDARD-INITIALIZATION-P", "%SLOT-PROTOCOL-CLASS-P",
    "%SLOT-ACCESSOR-EMF", "%MORE-SPECIFIC-P", "%METHOD-KEYS-OF", "%CL-UNION-EQ", "%CL-POSITION", "%CL-MERGE",
    "%FUNCTION-OBJECT-DOC", "%DOCUMENTATION-1", "%DOC-ALIST-GET",
};

/* The stdlib's functions are analysed on their first call, so that the boot stays fast; those of
 * the system loader's packages are analysed at the end of the boot instead, so that the boot image
 * holds them analysed: every system load calls most of them (and the CLOS and LOOP code they
 * expand to), and each session would otherwise analyse them on its first load. */
static void boot_analyse_loader(Lisp *L) {
    static const char *const packages[] = {"ASDF", "UIOP", "QUICKLISP-CLIENT"};
    for (size_t i = 0; i < sizeof packages / sizeof *packages; i++) {
        Obj p = package_find_cstr(L, packages[i]);
        if (p == NIL) continue;
        symtable_each(&PKG(p)->internal, force_symbol, L, NULL);
        symtable_each(&PKG(p)->external, force_symbol, L, NULL);
    }
    for (size_t i = 0; i < sizeof loader_calls / sizeof *loader_calls; i++) {
        Obj sym = find_symbol_cstr(L, L->pkg_system, loader_calls[i]);
        if (is_type(sym, T_SYMBOL)) force_symbol(L, sym, NULL);
    }
}

static bool boot_from_source(Lisp *L) {
    boot_packages(L);
    boot_symbols(L);
    boot_variables(L);
    eval_init(L);
    for (size_t i = 0; i < sizeof module_inits / sizeof *module_inits; i++) module_inits[i](L);
    if (lisp_pcall(L, FR_TOPLEVEL, load_stdlib, NULL)) {
        fprintf(stderr, "tinycl: error while loading the standard library: %s\n",
                error_describe_bootstrap(L, L->last_error));
        return false;
    }
    char why[256];
    if (!abi_check_upcalls(L, why, sizeof why)) {
        fprintf(stderr, "tinycl: the standard library breaks the C-Lisp contract (runtime/lisp-abi.def): %s\n", why);
        return false;
    }
    ((Header *)L->pkg_cl)->flags |= PKG_LOCKED;
    L->boot_phase = 1;
    boot_analyse_loader(L);
    return true;
}

/* A refused image is said once per process; every interpreter then boots from source. */
static bool image_refused;

Lisp *lisp_new(const Config *cfg) {
    gc_process_init();
    if (!GC_thread_is_registered()) {
        struct GC_stack_base sb;
        GC_get_stack_base(&sb);
        GC_register_my_thread(&sb);
    }
    Lisp *L = (Lisp *)GC_MALLOC_UNCOLLECTABLE(sizeof(Lisp));
    if (!L) return NULL;
    lisp_setup(L, cfg);
    Lisp *prev = gc_current;
    gc_current = L;
    bool booted = false;
    if (!bootimage_source_boot() && !image_refused && (bootimage_available() || bootimage_required())) {
        char err[IMAGE_ERRLEN];
        booted = bootimage_load(L, err);
        if (!booted && bootimage_required()) {
            fprintf(stderr, "tinycl: boot image refused: %s\n", err);
            gc_current = prev;
            return NULL;
        }
        if (!booted) {
            image_refused = true;
            fprintf(stderr, "tinycl: boot image refused (%s); booting from the sources\n", err);
            lisp_setup(L, cfg);
        }
    }
    if (!booted && !boot_from_source(L)) {
        gc_current = prev;
        return NULL;
    }
    gc_current = prev ? prev : L;
    ticker_register(L);   /* the deadline, heap cap and finalizers reach its safe points */
    return L;
}

void lisp_free(Lisp *L) {
    /* its other Lisp threads first: they end (their cleanups run) or the interpreter stays */
    if (!threads_stop_others(L, THREADS_STOP_GRACE)) {
        fprintf(stderr, "tinycl: %d Lisp threads did not end when asked; their interpreter is not freed\n",
                threads_others_alive(L));
        return;
    }
    ticker_unregister(L);
    gc_forget_interpreter(L);
    weak_forget_interpreter(L);
    if (gc_current == L) gc_current = NULL;
    free(L->prof_stack);
    image_release(&L->image_heap);     /* the boot image's objects die with the interpreter */
    GC_FREE(L);
}
