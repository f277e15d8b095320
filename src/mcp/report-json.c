/* report-json.c: the structuredContent of the systems tools, built from the session's TclReport
 * (one builder per tool; the field names and their order are the tools' output schemas'). */
#include "mcp.h"
#include <string.h>

static cJSON *text_or_null(const char *s) { return s ? cJSON_CreateString(s) : cJSON_CreateNull(); }

static cJSON *texts(char *const *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, text_or_null(v[i]));
    return a;
}

static cJSON *record_json(const TclSystemRecord *r) {
    if (!r) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "name", text_or_null(r->name));
    cJSON_AddItemToObject(o, "version", text_or_null(r->version));
    cJSON_AddItemToObject(o, "load_time", text_or_null(r->load_time));
    cJSON_AddNumberToObject(o, "load_time_universal", (double)r->load_time_universal);
    cJSON_AddNumberToObject(o, "elapsed_ms", (double)r->elapsed_ms);
    cJSON_AddItemToObject(o, "source_file", text_or_null(r->source_file));
    cJSON_AddItemToObject(o, "dependencies", texts(r->dependencies, r->ndependencies));
    cJSON_AddItemToObject(o, "transitive_dependencies", texts(r->transitive_dependencies, r->ntransitive_dependencies));
    cJSON_AddItemToObject(o, "packages", texts(r->packages, r->npackages));
    cJSON_AddNumberToObject(o, "definitions", r->definitions);
    return o;
}

static cJSON *records_json(const TclSystemRecord *r, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, record_json(&r[i]));
    return a;
}

cJSON *mcp_load_report_json(const TclReport *rep) {
    cJSON *o = cJSON_CreateObject();
    if (!rep->has_details) {
        /* a failed load: the systems it loaded completely before the error, when there were some */
        if (rep->nrecords > 0) cJSON_AddItemToObject(o, "loaded_before_error", records_json(rep->records, rep->nrecords));
        return o;
    }
    cJSON_AddItemToObject(o, "system", text_or_null(rep->system));
    cJSON_AddItemToObject(o, "version", text_or_null(rep->version));
    cJSON_AddItemToObject(o, "status", text_or_null(rep->status));
    cJSON_AddItemToObject(o, "record", record_json(rep->record));
    cJSON *systems = cJSON_AddArrayToObject(o, "systems");
    for (int i = 0; i < rep->nsystems; i++) {
        const TclSystemEntry *e = &rep->systems[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToObject(x, "name", text_or_null(e->name));
        cJSON_AddItemToObject(x, "version", text_or_null(e->version));
        cJSON_AddItemToObject(x, "action", text_or_null(e->status));
        if (e->elapsed_ms >= 0) cJSON_AddNumberToObject(x, "elapsed_ms", (double)e->elapsed_ms);
        else cJSON_AddNullToObject(x, "elapsed_ms");
        cJSON_AddItemToArray(systems, x);
    }
    return o;
}

cJSON *mcp_describe_report_json(const TclReport *rep) {
    cJSON *o = cJSON_CreateObject();
    if (!rep->has_details) return o;
    cJSON_AddItemToObject(o, "name", text_or_null(rep->system));
    cJSON_AddItemToObject(o, "version", text_or_null(rep->version));
    cJSON_AddItemToObject(o, "description", text_or_null(rep->description));
    cJSON_AddItemToObject(o, "author", text_or_null(rep->author));
    cJSON_AddItemToObject(o, "license", text_or_null(rep->license));
    cJSON_AddItemToObject(o, "dependencies", texts(rep->dependencies, rep->ndependencies));
    cJSON_AddItemToObject(o, "source_file", text_or_null(rep->source_file));
    cJSON_AddItemToObject(o, "components", texts(rep->components, rep->ncomponents));
    cJSON_AddItemToObject(o, "status", text_or_null(rep->status));
    cJSON_AddItemToObject(o, "record", record_json(rep->record));
    return o;
}

cJSON *mcp_local_systems_json(const TclReport *rep) {
    cJSON *o = cJSON_CreateObject();
    if (!rep->has_details) return o;
    cJSON *systems = cJSON_AddArrayToObject(o, "systems");
    for (int i = 0; i < rep->nsystems; i++) {
        const TclSystemEntry *e = &rep->systems[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToObject(x, "name", text_or_null(e->name));
        cJSON_AddItemToObject(x, "version", text_or_null(e->version));
        cJSON_AddItemToObject(x, "source_file", text_or_null(e->source_file));
        cJSON_AddBoolToObject(x, "loaded", e->status && strcmp(e->status, "loaded") == 0);
        cJSON_AddItemToObject(x, "status", text_or_null(e->status));
        cJSON_AddItemToArray(systems, x);
    }
    cJSON_AddNumberToObject(o, "total", rep->total);
    cJSON_AddNumberToObject(o, "offset", rep->offset);
    if (rep->next_offset >= 0) cJSON_AddNumberToObject(o, "next_offset", rep->next_offset);
    else cJSON_AddNullToObject(o, "next_offset");
    cJSON_AddBoolToObject(o, "truncated_scan", rep->truncated_scan);
    return o;
}

cJSON *mcp_loaded_systems_json(const TclReport *rep) {
    cJSON *o = cJSON_CreateObject();
    if (rep->has_details) cJSON_AddItemToObject(o, "systems", records_json(rep->records, rep->nrecords));
    return o;
}

cJSON *mcp_dependencies_json(const TclReport *rep) {
    cJSON *o = cJSON_CreateObject();
    if (!rep->has_details) return o;
    cJSON_AddItemToObject(o, "system", text_or_null(rep->system));
    cJSON_AddBoolToObject(o, "transitive", rep->transitive);
    cJSON *deps = cJSON_AddArrayToObject(o, "dependencies");
    for (int i = 0; i < rep->nsystems; i++) {
        const TclSystemEntry *e = &rep->systems[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToObject(x, "name", text_or_null(e->name));
        cJSON_AddItemToObject(x, "version", text_or_null(e->version));
        cJSON_AddItemToObject(x, "status", text_or_null(e->status));
        cJSON_AddItemToArray(deps, x);
    }
    return o;
}
