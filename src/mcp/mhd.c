/* mhd.c: libmicrohttpd opened at run time, for `tinycl mcp --http` only (see mhd.h). */
#include "mhd.h"
#include <dlfcn.h>
#include <stdio.h>

MhdApi mhd;

/* The names to look up and where each goes: the table is the whole of what the transport uses. */
typedef struct MhdEntry { const char *name; size_t offset; } MhdEntry;
#define MHD_ENTRY(field) {"MHD_" #field, offsetof(MhdApi, field)}
static const MhdEntry mhd_entries[] = {
    MHD_ENTRY(start_daemon), MHD_ENTRY(quiesce_daemon), MHD_ENTRY(stop_daemon), MHD_ENTRY(get_daemon_info),
    MHD_ENTRY(lookup_connection_value), MHD_ENTRY(get_connection_info), MHD_ENTRY(create_response_from_buffer),
    MHD_ENTRY(create_response_from_callback), MHD_ENTRY(add_response_header), MHD_ENTRY(queue_response),
    MHD_ENTRY(destroy_response),
};

/* The soname of the ABI microhttpd.h describes (Debian's libmicrohttpd12), then the development
 * link as a fallback for a library built by hand. */
static const char *const mhd_sonames[] = {"libmicrohttpd.so.12", "libmicrohttpd.so"};

bool mcp_mhd_load(char *err, size_t errlen) {
    static void *lib;
    if (lib) return true;
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof mhd_sonames / sizeof *mhd_sonames; i++)
        h = dlopen(mhd_sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "--http needs libmicrohttpd (%s), which could not be loaded: %s "
                 "(on Debian: apt-get install libmicrohttpd12)", mhd_sonames[0], dlerror());
        return false;
    }
    MhdApi api;
    for (size_t i = 0; i < sizeof mhd_entries / sizeof *mhd_entries; i++) {
        void *f = dlsym(h, mhd_entries[i].name);
        if (!f) {
            snprintf(err, errlen, "--http needs libmicrohttpd, but the loaded one lacks %s", mhd_entries[i].name);
            dlclose(h);
            return false;
        }
        /* POSIX guarantees a function's address survives the trip through void * */
        *(void **)((char *)&api + mhd_entries[i].offset) = f;
    }
    mhd = api;
    lib = h;
    return true;
}
