/* state.h: the interpreter state (Lisp *L) every function receives, and the safe point. */
#ifndef TINYCL_STATE_H
#define TINYCL_STATE_H

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include "object.h"
#include "config.h"

typedef enum {
#define X(c, p, n) SY_##c,
#include "symbols.def"
#undef X
    SY_COUNT
} WellKnownSymbol;

/* Access a well-known symbol: S(QUOTE), S(PACKAGE_VAR), S(K_TEST). */
#define S(name) (L->syms[SY_##name])

/* Scanned objects up to this many words come from the interpreter's own free lists (gc.h). */
#define GC_FREE_WORDS 16

/* ---- frames: one stack for every non-local exit ---- */
typedef enum {
    FR_TOPLEVEL,       /* a top-level evaluation; errors and interrupts land here */
    FR_BLOCK,          /* a block reachable by return-from from a closure */
    FR_TAGBODY,        /* a tagbody reachable by go from a closure */
    FR_CATCH,
    FR_UNWIND_PROTECT,
} FrameKind;

/* The jump under every non-local exit, chosen here alone. No exit needs the signal mask: the
 * handlers of SIGINT, SIGTERM and the timers only set flags that safe points read, and stack
 * overflow is found by comparing the stack pointer, so no jump ever leaves a signal handler and
 * nothing has to be saved or restored. The compiler's own __builtin_setjmp keeps three words
 * (frame, stack and resume address) and is expanded inline; glibc's sigsetjmp saves every
 * callee-saved register and its siglongjmp walks the thread's cancellation handlers, which was 13%
 * of a CATCH/THROW-heavy program (bench/ctak). __builtin_longjmp can only pass 1, so the code
 * travels in the frame. Under AddressSanitizer, which must see every jump to forget the poisoned
 * stack it leaves, the library's _setjmp/_longjmp (still without the signal mask) serve.
 * FRAME_SETJMP is called only by the protected regions of control.h and the evaluator's exit
 * points; FRAME_LONGJMP only by unwind_to. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__GNUC__)
#define FRAME_JUMP_LIBC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FRAME_JUMP_LIBC 1
#endif
#endif
#ifdef FRAME_JUMP_LIBC
typedef jmp_buf FrameJmpBuf;
#define FRAME_SETJMP(fr) _setjmp((fr)->jb)
#define FRAME_LONGJMP(fr, code) _longjmp((fr)->jb, (code))
#else
typedef void *FrameJmpBuf[5];
#define FRAME_SETJMP(fr) (__builtin_setjmp((fr)->jb) ? (fr)->jump_code : 0)
#define FRAME_LONGJMP(fr, code) ((fr)->jump_code = (code), __builtin_longjmp((fr)->jb, 1))
#endif

typedef struct Frame {
    struct Frame *prev;
    FrameKind kind;
    Obj tag;                 /* catch tag; block/tagbody: the BlockTag object */
    size_t special_sp;       /* special binding stack depth at entry */
    struct CallRecord *calls;/* call record chain at entry */
    int error_depth;         /* nesting of C-signalled errors at entry */
    int jump_code;           /* the JUMP_* code of the exit landing here (see FRAME_LONGJMP) */
    FrameJmpBuf jb;
} Frame;

/* The codes of exits, which FRAME_SETJMP returns when one lands. */
enum { JUMP_RETURN = 1, JUMP_UNWIND = 2, JUMP_ERROR = 3, JUMP_INTERRUPT = 4, JUMP_EXIT = 5, JUMP_GO_BASE = 16 };

/* A record of an active call, for backtraces, the debugger, TRACE and the profiler. A direct call
 * (nodes.c: its arguments evaluated straight into the callee's frame) writes only the first three
 * fields and sets the low bit of LINK: its arguments are the first slots of ENV, as many as its
 * closure's required parameters; use callrec_prev, callrec_nargs and callrec_args to read one. */
typedef struct CallRecord {
    struct CallRecord *link; /* the caller's record; low bit: this record is a direct call's */
    Obj fn;
    void *env;               /* an interpreted call's frame once its parameters are bound, else NULL */
    int nargs;               /* not written by a direct call */
    Obj *args;               /* not written by a direct call */
} CallRecord;

static inline CallRecord *callrec_prev(const CallRecord *r) {
    return (CallRecord *)((uintptr_t)r->link & ~(uintptr_t)1);
}
static inline bool callrec_direct(const CallRecord *r) { return ((uintptr_t)r->link & 1) != 0; }

typedef struct SpecialBinding { Obj sym; Obj old; } SpecialBinding;

/* The boot image holds this structure's fields as the boot left them: a field that belongs to one
 * interpreter instance rather than to the booted state must be listed in bootimage.c's
 * instance_fields[]. */
struct Lisp {
    Obj syms[SY_COUNT];

    /* packages */
    Obj packages;            /* equal hash table: name and nicknames -> package */
    Obj pkg_cl, pkg_cl_user, pkg_keyword, pkg_system, pkg_ext;
    Symbol nil_sym;          /* NIL's symbol data (NIL itself is an immediate) */

    /* control */
    Frame *frames;
    CallRecord *calls;
    SpecialBinding *specials;
    size_t special_sp, special_cap;

    /* multiple values: valid after any evaluation */
    int nvals;
    Obj values[MULTIPLE_VALUES_LIMIT];

    /* a lexically local exit travelling up as UNWIND_MARK */
    void *exit_target;       /* the block or tagbody node */
    int exit_tag;            /* tag index for go */

    /* a non-local unwind in progress (through unwind-protect cleanups) */
    Frame *unwind_target;
    int unwind_code;

    /* safe points */
    char *stack_limit;       /* current limit (lowered while a stack error is handled; above the soft
                              * limit, a probe of how deep the stack goes: gc_clear_stack_used) */
    char *stack_low;         /* the deepest safe point seen since the probe was armed */
    char *stack_soft_limit;  /* the normal limit */
    char *stack_hard_limit;  /* beyond which nothing may run */
    volatile sig_atomic_t interrupt_pending; /* set by signals and other threads */
    int interrupt_kind;      /* INTERRUPT_* */
    char *volatile poll_limit; /* what the safe point compares the stack pointer with: stack_limit,
                              * or POLL_NOW to send the next safe point down its slow path */
    double deadline;         /* monotonic seconds; 0 = none */
    bool in_cleanup;         /* running unwind-protect cleanups during an interrupt */
    size_t output_left;      /* characters the capture streams (ST_CAPTURE) may still take in this call;
                              * when they run out the evaluation stops (INTERRUPT_OUTPUT_LIMIT) */
    bool exit_unavailable;   /* (exit) signals TINYCL:EXIT-NOT-AVAILABLE (the MCP server) */

    /* reader state for the current top-level read */
    int read_depth, bq_level;
    Obj read_labels;
    bool read_preserve_ws;   /* READ-PRESERVING-WHITESPACE: recursive reads inherit it (CLHS READ) */

    /* counters and misc */
    uint64_t gensym_counter;
    uint64_t package_serial;
    uint64_t node_count;
    void *session;           /* back pointer owned by src/session.c */
    /* this interpreter's heap cap (gc.c): with several interpreters in the process, each is charged
     * the bytes it allocated, scaled down at each collection to the share of what survived */
    size_t heap_cap;         /* bytes; 0: none */
    bool heap_reserve_granted;   /* the cap is raised while a heap error is handled */
    double heap_charge;      /* this interpreter's estimated share of the bytes in use */
    double heap_scale_seen;  /* the process scale its charge was last brought to */
    size_t heap_unflushed;   /* allocated since the charge was last settled */
    /* gc.h: free lists of small scanned objects taken from the collector a batch at a time,
     * indexed by size in words: shared by the interpreter's threads, which allocate only while
     * they hold its lock (thread.h) */
    void *gc_free[GC_FREE_WORDS + 1];
    void *threads;           /* the Lisp threads (thread.c), NULL until the first is made */
    struct TclAccess *access;   /* the access policy (access.h), owned by the session; NULL: unrestricted */
    /* interactive line input for the REPL's debugger (NULL outside the REPL): returns a
     * malloc'd line without its newline, or NULL at end of input */
    char *(*read_line_hook)(void *ctx, const char *prompt);
    void *read_line_ctx;
    Config cfg;

    /* bootstrap error state, used before the condition system is loaded */
    Obj last_error;          /* the condition (or bootstrap (type . initargs)) that ended a top-level form */
    Obj last_backtrace;      /* frames captured where that error was signalled */
    void *format_cache;      /* format.c: parsed control strings, by string (collector-visible) */
    Obj session_warnings;
    Obj boot_snapshot;       /* see snapshot.c: the state a reset returns to */
    Obj image_snapshot;      /* the snapshot taken when the boot image was written, or NIL (snapshot.c) */
    Obj image_restorers;     /* the registries' restorers made then (SYS:*SESSION-RESTORERS*), or NIL */
    Obj boot_symbols;        /* eq table of the symbols in boot_snapshot, built on demand */
    Obj pkg_journal;         /* while captures_open: #(package symbol status-before) per change to a
                              * package's tables, newest first (snapshot.c) */
    long captures_open;      /* system-load captures begun and not yet committed or released */
    Obj system_packages;     /* packages created by loading systems: kept by a plain reset */    /* (type-string . message-string) noted during the current call, newest first */
    int error_depth;         /* nesting of err_condition, to fall back to the bootstrap path */
    int exit_code;           /* set by (exit) before unwinding with JUMP_EXIT */
    int boot_phase;          /* 0 while the stdlib loads, 1 after */

    /* the profiler (profile.c) */
    bool profiling;
    Obj profile_table;       /* function -> its counts, while profiling */
    Obj profile_entries;     /* the counts, one vector per function called */
    Obj profile_root;        /* CL:EVAL, through which the session runs each profiled form */
    void *prof_stack;        /* malloc'd open calls */
    int prof_sp, prof_cap;

    /* analysis warnings (warnings.c) */
    Obj undefined_refs;      /* #(kind name line column file) of the compilation unit, newest first */
    int form_line, form_column; /* where the top-level form being evaluated began (0: unknown) */
    Obj form_file;           /* the file LOAD read that form from (a string), NIL: the session's code */

    /* cross-reference and source locations (xref.c) */
    Obj xref_table;          /* equal hash table: definition key -> (location . entries) */
    Obj xref_caller;         /* key of the definition being analysed, or NIL: nothing recorded */
    Obj xref_pending;        /* ((kind . name) ...) noted for it so far, newest first */
    Obj xref_definers;       /* the defining macros (DEFUN, DEFMETHOD, ...) */
    Obj source_location;     /* of the top-level form being evaluated, or NIL */
    Obj xref_sites;          /* equal hash table: definition key -> ((kind name line . column) ...) */
    Obj xref_pending_sites;  /* the sites noted for the definition being analysed, newest first */
    Obj xref_site;           /* (line . column) of the innermost form being analysed the reader placed */
    Obj form_positions;      /* eq hash table: list read -> (line . column) of its "(", kept while LOAD
                              * or the session reads and evaluates a form (not at boot); else NIL */
    Obj form_positions_stream; /* the stream whose lists go into form_positions */
    Obj xref_deferred;       /* eq hash table: compiled files' tables whose notes and sites are not
                              * decoded yet -> T (xref_compile.c, xref_complete_files) */

    struct ImageHeap {       /* where the boot image was loaded (image.h) */
        char *scanned; size_t scanned_bytes, scanned_room;
        char *atomic; size_t atomic_room;
        bool fixed;          /* mapped from the executable at the address it was written for */
        size_t atomic_bytes;
        uint64_t *starts;    /* where blocks start: a bit per word of the scanned part, then of the atomic part */
        size_t scanned_raw;  /* mapped: the bytes of the scanned part that are the file's (the rest was compressed) */
        bool tracked;        /* the reader made the scanned part write-tracked (gcdirty.h) */
    } image_heap;
    /* the heap of the last session checkpoint restore (src/session-checkpoint.c): like the boot
     * image's, its blocks are not the collector's (gc_realloc copies them; the image writer finds
     * them by their block starts) */
    struct ImageHeap *restored_heaps;
    size_t nrestored_heaps;
};

enum { INTERRUPT_NONE, INTERRUPT_TIMEOUT, INTERRUPT_CANCEL, INTERRUPT_USER, INTERRUPT_OUTPUT_LIMIT };

/* The slow half of the safe point: stack, interrupts, deadlines. */
void safe_point_slow(Lisp *L);

/* A poll_limit above every stack address. */
#define POLL_NOW ((char *)UINTPTR_MAX)

/* Send the next safe point down its slow path (safe from a signal handler or another thread). */
static inline void lisp_request_poll(Lisp *L) { L->poll_limit = POLL_NOW; }

/* Every call and every backward GO passes here: one compare. The stack limit, interrupts, the
 * deadline, the heap cap and finalizers are all seen through it: whatever needs the slow path
 * raises poll_limit (lisp_request_poll), interrupts when they are requested, the rest from the
 * ticker thread every few milliseconds (ticker.c). */
static inline void safe_point(Lisp *L) {
    if (UNLIKELY((char *)__builtin_frame_address(0) < L->poll_limit)) safe_point_slow(L);
}

/* The same with the stack's depth given by the address of a local (a call's frame), which spares a
 * function the frame pointer __builtin_frame_address(0) makes it set up. */
static inline void safe_point_at(Lisp *L, const void *local) {
    if (UNLIKELY((const char *)local < L->poll_limit)) safe_point_slow(L);
}

/* The deadline was set: the next safe point looks at it, and the ticker runs at its busy rate. */
void lisp_poll_soon(Lisp *L);

/* Ask the evaluation to stop at its next safe point with KIND (INTERRUPT_*); safe from a signal
 * handler or another thread. */
static inline void lisp_request_interrupt(Lisp *L, int kind) {
    L->interrupt_kind = kind;
    L->interrupt_pending = 1;
    lisp_request_poll(L);
}

/* Used by C recursion (reader, printer, equal): only the stack test. */
static inline void stack_check(Lisp *L) {
    if (UNLIKELY((char *)__builtin_frame_address(0) < L->stack_limit)) safe_point_slow(L);
}

/* Create and destroy interpreters. */
Lisp *lisp_new(const Config *cfg);
void lisp_free(Lisp *L);

/* Monotonic clock in seconds. */
double lisp_monotonic_now(void);

/* Recompute stack limits for the calling thread (call when changing threads). */
void lisp_set_stack_limits(Lisp *L);
/* The calling thread's stack: its lowest address and size (NULL and 0 when the system will not say). */
void lisp_thread_stack(void **addr, size_t *size);
/* On the main thread, make its stack able to grow to BYTES: the kernel grows the main stack up to
 * the soft limit in force when it grows, and leaves at least 128 MB free below it when the limit
 * at exec was finite, so raising the soft limit is enough. False (nothing changed) on another
 * thread, or when the hard limit, or an infinite soft one (a layout without that room), forbids. */
bool lisp_main_stack_grow(size_t bytes);

#endif
