/* system.c: the environment (CLHS chapter 25) and tinycl extensions: time, exit, getenv, gc. */
#include "weak.h"
#include "prim.h"
#include "list.h"
#include "number.h"
#include "lstring.h"
#include "gc.h"
#include "gcdirty.h"
#include "imagecold.h"
#include "imagepages.h"
#include "bootimage.h"
#include "pathname.h"
#include "package.h"
#include "access.h"
#include "docs.h"
#include "iowait.h"
#include <time.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/time.h>
#include <sys/resource.h>
#include <sys/utsname.h>

/* Seconds between 1900-01-01 and 1970-01-01 */
#define UNIX_TO_UNIVERSAL 2208988800LL

DEFPRIM(prim_get_universal_time) { UNUSED_ARGS; return make_int64(L, (int64_t)time(NULL) + UNIX_TO_UNIVERSAL); }

DEFPRIM(prim_get_internal_real_time) {
    UNUSED_ARGS;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return make_int64(L, (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

DEFPRIM(prim_get_internal_run_time) {
    UNUSED_ARGS;
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return make_int64(L, (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

DEFPRIM(prim_sleep) {
    UNUSED_ARGS;
    double secs = number_to_double(L, check_real(L, args[0]));
    if (secs < 0) err_type(L, args[0], cons(L, S(REAL), cons(L, FIX(0), NIL)));
    iowait_sleep(L, secs);   /* in slices, so that interrupts and timeouts are seen */
    return NIL;
}

/* (exit &key code abort) and (quit): unwind to the top level, which ends the process */
static Obj do_exit(Lisp *L, int nargs, Obj *args) {
    Obj keys[3] = {S(K_CODE), S(K_ABORT), keyword(L, "TIMEOUT")}, out[3];
    parse_keys(L, nargs, args, 0, 3, keys, out);
    int code = 0;
    if (out[0] != NO_VALUE && out[0] != NIL) {
        /* as SBCL: any (signed-byte 32) is accepted and the system keeps its low 8 bits (256 -> 0) */
        Obj c = out[0];
        if (!is_fixnum(c) || FIXVAL(c) < INT32_MIN || FIXVAL(c) > INT32_MAX)
            err_type(L, c, list2(L, S(SIGNED_BYTE), FIX(32)));
        code = (int)(FIXVAL(c) & 0xFF);
    }
    /* a server session has no process to end: a condition the code can handle */
    if (L->exit_unavailable) err_condition(L, S(EXT_EXIT_NOT_AVAILABLE), NIL);
    L->exit_code = code;
    Frame *top = frame_outermost_toplevel(L);
    if (!top) {
        fflush(stdout);
        exit(code);
    }
    unwind_to(L, top, JUMP_EXIT);
}

DEFPRIM(prim_exit) { return do_exit(L, nargs, args); }

DEFPRIM(prim_posix_getenv) {
    UNUSED_ARGS;
    const char *name = string_to_utf8(L, check_string(L, args[0]), NULL);
    /* a variable the access policy hides reads as unset */
    if (!access_env_allowed(L, name)) return NIL;
    char *v = getenv(name);
    return v ? string_from_cstr(L, v) : NIL;
}

/* (tinycl:gc &key full): the collection is always full. The stack below is cleared first, so
 * that words dead calls left there do not keep their objects alive, and finalizers the
 * collection queued run before it returns. */
DEFPRIM(prim_gc) {
    UNUSED_ARGS;
    gc_clear_stack(L);
    gc_collect();
    weak_run_finalizers(L);
    return NIL;
}

DEFPRIM(prim_pct_heap_size) { UNUSED_ARGS; return make_uint64(L, gc_bytes_in_use()); }

/* (sys:%bytes-allocated): bytes allocated since the process started, for TIME */
DEFPRIM(prim_pct_bytes_allocated) { UNUSED_ARGS; return make_uint64(L, gc_total_bytes()); }

/* (sys:%gc-count): collections since the process started (a start from the boot image makes none) */
DEFPRIM(prim_pct_gc_count) { UNUSED_ARGS; return make_uint64(L, gc_collections()); }

/* (sys:%image-dirty-pages) -> pages of the boot image's pointer-holding part written since it was
 * loaded (the ones each collection scans), its pages; both NIL when its writes are not tracked */
DEFPRIM(prim_pct_image_dirty_pages) {
    UNUSED_ARGS;
    size_t total = 0, dirty = gcdirty_pages(L->image_heap.scanned, &total);
    return total ? values2(L, make_uint64(L, dirty), make_uint64(L, total)) : values2(L, NIL, NIL);
}

/* (sys:%image-pages directory) -> :MAPPED, :WRITTEN or NIL, and the pages mapped: the boot
 * image's cold pages not there yet mapped from the file of them in DIRECTORY (imagepages.h),
 * written there first (the directory made if need be) when it has no valid one. The caller (the
 * system loader) decides where; the session's access rules decide, as for any file, whether the
 * file may be read (else NIL) and written. Checked here, quietly, rather than by the caller with
 * sys:%check-access: handling its condition cost the caller about 30 cold pages of the image
 * inflated just before they could be mapped. NIL also when DIRECTORY is NIL, when this
 * interpreter's image is not the executable's mapped at its address, or every page is there. */
DEFPRIM(prim_pct_image_pages) {
    UNUSED_ARGS;
    size_t len = 0, mapped = 0;
    const unsigned char *img = bootimage_bytes(&len);
    ImagePagesResult r = IMAGEPAGES_NONE;
    if (args[0] != NIL && img && L->image_heap.fixed) {
        Obj p = pathname_merged(L, args[0]);
        char *dir = pathname_is_wild(L, p) ? NULL : pathname_native(L, p);
        if (dir && access_readable(L, dir)) r = imagepages_use(img, len, dir, access_writable(L, dir), &mapped);
    }
    imagecold_expect(false);
    Obj what = r == IMAGEPAGES_MAPPED ? keyword(L, "MAPPED") : r == IMAGEPAGES_WRITTEN ? keyword(L, "WRITTEN") : NIL;
    return values2(L, what, make_uint64(L, mapped));
}

/* (sys:%image-pages-soon): sys:%image-pages is about to be called: until then a cold page
 * touched is inflated alone, not with the run of pages around it, since those would soon be
 * mapped from the file for less (the caller's own work until then touches about 30 pages) */
DEFPRIM(prim_pct_image_pages_soon) {
    UNUSED_ARGS;
    imagecold_expect(true);
    return NIL;
}

/* (sys:%image-cold-pages) -> the boot image's cold pages inflated so far in this process, and
 * those mapped from a file of them (sys:%image-pages) */
DEFPRIM(prim_pct_image_cold_pages) {
    UNUSED_ARGS;
    return values2(L, make_uint64(L, imagecold_inflated()), make_uint64(L, imagecold_from_file()));
}

/* (sys:%time-zone universal-time) -> hours west of Greenwich (a rational), daylight-saving-p,
 * for the local time zone at that moment */
DEFPRIM(prim_pct_time_zone) {
    UNUSED_ARGS;
    int64_t ut;
    if (!integer_to_int64(check_integer(L, args[0]), &ut)) err_type(L, args[0], S(FIXNUM));
    time_t t = (time_t)(ut - UNIX_TO_UNIVERSAL);
    struct tm tm;
    if (!localtime_r(&t, &tm)) return values2(L, FIX(0), NIL);
    long west = -tm.tm_gmtoff + (tm.tm_isdst > 0 ? 3600 : 0);
    Obj hours = (west % 3600) == 0 ? FIX(west / 3600) : make_ratio(L, FIX(west), FIX(3600));
    return values2(L, hours, boolean(L, tm.tm_isdst > 0));
}

DEFPRIM(prim_lisp_implementation_type) { UNUSED_ARGS; return string_from_cstr(L, "tinycl"); }
DEFPRIM(prim_lisp_implementation_version) { UNUSED_ARGS; return string_from_cstr(L, TINYCL_VERSION); }
DEFPRIM(prim_machine_type) { UNUSED_ARGS; return string_from_cstr(L, "X86-64"); }
DEFPRIM(prim_software_type) { UNUSED_ARGS; return string_from_cstr(L, "Linux"); }
/* The kernel release (uname -r), as SBCL gives; NIL when the system will not say. */
DEFPRIM(prim_software_version) {
    UNUSED_ARGS;
    struct utsname u;
    if (uname(&u) != 0) return NIL;
    return string_from_cstr(L, u.release);
}
DEFPRIM(prim_machine_instance) {
    UNUSED_ARGS;
    char buf[256];
    if (gethostname(buf, sizeof buf) != 0) return NIL;
    buf[255] = 0;
    return string_from_cstr(L, buf);
}

const PrimDef system_prims[] = {
    {"GET-UNIVERSAL-TIME", PK_CL, prim_get_universal_time, 0, 0, 0, "()", "The current time as a universal time: seconds since the start of 1900, GMT."},
    {"GET-INTERNAL-REAL-TIME", PK_CL, prim_get_internal_real_time, 0, 0, 0, "()", "The elapsed wall-clock time in INTERNAL-TIME-UNITS-PER-SECOND units since an arbitrary fixed point."},
    {"GET-INTERNAL-RUN-TIME", PK_CL, prim_get_internal_run_time, 0, 0, 0, "()", "The processor time used so far by this process, in INTERNAL-TIME-UNITS-PER-SECOND units."},
    {"SLEEP", PK_CL, prim_sleep, 1, 1, 0, "(seconds)", "Pauses for SECONDS (a non-negative real) and returns NIL."},
    {"EXIT", PK_EXT, prim_exit, 0, REST, 0, "(&key code abort timeout)", "End the process with status CODE."},
    {"QUIT", PK_EXT, prim_exit, 0, REST, 0, "(&key code)", "End the process with status CODE."},
    {"POSIX-GETENV", PK_EXT, prim_posix_getenv, 1, 1, 0, "(name)", NULL},
    {"GC", PK_EXT, prim_gc, 0, REST, 0, "(&key full)", NULL},
    {"%HEAP-SIZE", PK_SYS, prim_pct_heap_size, 0, 0, 0, "()", NULL},
    {"%BYTES-ALLOCATED", PK_SYS, prim_pct_bytes_allocated, 0, 0, 0, "()", NULL},
    {"%GC-COUNT", PK_SYS, prim_pct_gc_count, 0, 0, 0, "()", NULL},
    {"%IMAGE-DIRTY-PAGES", PK_SYS, prim_pct_image_dirty_pages, 0, 0, FN_MV, "()", NULL},
    {"%IMAGE-PAGES", PK_SYS, prim_pct_image_pages, 1, 1, FN_MV, "(directory)", NULL},
    {"%IMAGE-PAGES-SOON", PK_SYS, prim_pct_image_pages_soon, 0, 0, 0, "()", NULL},
    {"%IMAGE-COLD-PAGES", PK_SYS, prim_pct_image_cold_pages, 0, 0, FN_MV, "()", NULL},
    {"%TIME-ZONE", PK_SYS, prim_pct_time_zone, 1, 1, FN_MV, "(universal-time)", NULL},
    {"LISP-IMPLEMENTATION-TYPE", PK_CL, prim_lisp_implementation_type, 0, 0, 0, "()", "The name of this Lisp implementation, as a string."},
    {"LISP-IMPLEMENTATION-VERSION", PK_CL, prim_lisp_implementation_version, 0, 0, 0, "()", "The version of this Lisp implementation, as a string."},
    {"MACHINE-TYPE", PK_CL, prim_machine_type, 0, 0, 0, "()", "The kind of processor, such as X86-64, as a string."},
    {"MACHINE-VERSION", PK_CL, prim_machine_type, 0, 0, 0, "()", "A string describing the processor model, or NIL."},
    {"MACHINE-INSTANCE", PK_CL, prim_machine_instance, 0, 0, 0, "()", "The host name of the computer running the program, or NIL."},
    {"SOFTWARE-TYPE", PK_CL, prim_software_type, 0, 0, 0, "()", "The name of the operating system, as a string."},
    {"SOFTWARE-VERSION", PK_CL, prim_software_version, 0, 0, 0, "()", "The version of the operating system (the kernel release), as a string, or NIL."},
    {0},
};

/* documentation of the constant system_init defines (docs.h) */
const DocRow system_variable_docs[] = {
    {"INTERNAL-TIME-UNITS-PER-SECOND", "How many internal time units make a second, for GET-INTERNAL-REAL-TIME and GET-INTERNAL-RUN-TIME; 1000000 in tinycl."},
    {0},
};

void system_init(Lisp *L) {
    prims_register(L, system_prims);
    SYM(S(INTERNAL_TIME_UNITS))->value = FIX(1000000);
    SYM(S(INTERNAL_TIME_UNITS))->h.flags |= SYM_CONSTANT | SYM_SPECIAL;
}
