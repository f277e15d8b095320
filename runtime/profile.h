/* profile.h: the deterministic profiler: calls, inclusive and exclusive time and allocation per function. */
#ifndef TINYCL_PROFILE_H
#define TINYCL_PROFILE_H

#include "state.h"

/* Called where a call record is pushed and popped while L->profiling is set. */
void profile_enter(Lisp *L, CallRecord *rec);
void profile_exit(Lisp *L, CallRecord *rec);

/* Start counting (clearing earlier counts); stop, closing the calls still open. */
void profile_start(Lisp *L);
void profile_stop(Lisp *L);

/* One function's counts, after profile_stop: the list L->profile_entries holds a vector
 * #(function calls inclusive-ns exclusive-ns bytes active) per function called. */
enum { PE_FN, PE_CALLS, PE_INCL, PE_EXCL, PE_BYTES, PE_ACTIVE, PE_SIZE };

#define PROFILE_ENTER(L, rec) do { if (UNLIKELY((L)->profiling)) profile_enter(L, rec); } while (0)
#define PROFILE_EXIT(L, rec) do { if (UNLIKELY((L)->profiling)) profile_exit(L, rec); } while (0)

#endif
