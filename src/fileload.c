/* fileload.c: load-file behind the session API (stdlib-lisp/filetools.lisp loads form by form and
 * leaves its report in SYS::*FILES-REPORT*; this turns it into a TclFileLoad), and the reader check
 * of edit-lisp-form's content. */
#include "tinycl.h"
#include "session.h"
#include "files.h"
#include "lispreport.h"
#include "lispsrc.h"
#include "../runtime/state.h"
#include "../runtime/package.h"
#include "../runtime/lstring.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int files_mark_skipped(TclSession *s, LsrcFile *lf) {
    size_t cap = 64, len = 0;
    char *code = (char *)malloc(cap);
    len = (size_t)snprintf(code, cap, "(sys::%%conditions-skipped '(");
    int any = 0;
    for (int i = 0; i < lf->count; i++) {
        if (!lf->forms[i].condition) continue;
        char *lit = files_lisp_string(lf->forms[i].condition);
        size_t l = strlen(lit);
        if (len + l + 8 > cap) { cap = (len + l + 8) * 2; code = (char *)realloc(code, cap); }
        memcpy(code + len, lit, l);
        len += l;
        code[len++] = ' ';
        free(lit);
        any++;
    }
    if (!any) { free(code); return 0; }
    memcpy(code + len, "))", 3);
    Lisp *L = s->L;
    Obj var = intern_cstr(L, L->pkg_system, "*FILES-REPORT*");
    SYM(var)->value = NIL;
    tcl_result_free(tcl_eval(s, code, NULL, 10));
    free(code);
    L = s->L;
    Obj rep = SYM(var)->value;
    SYM(var)->value = NIL;
    int skipped = 0;
    for (int i = 0; i < lf->count && is_cons(rep); i++) {
        if (!lf->forms[i].condition) continue;
        if (CAR(rep) != NIL) { lf->forms[i].skipped = true; skipped++; }
        rep = CDR(rep);
    }
    return skipped;
}

TclFileLoad *tcl_load_source_file(TclSession *s, const char *path, const char *package, double timeout) {
    TclFileLoad *l = (TclFileLoad *)calloc(1, sizeof *l);
    l->path = report_strdup(path);
    char *lp = files_lisp_string(path);
    char *lk = package ? files_lisp_string(package) : report_strdup("nil");
    size_t n = strlen(lp) + strlen(lk) + 64;
    char *code = (char *)malloc(n);
    snprintf(code, n, "(sys::%%load-file-report %s %s)", lp, lk);
    free(lp);
    free(lk);
    Lisp *L = s->L;
    Obj var = intern_cstr(L, L->pkg_system, "*FILES-REPORT*");
    SYM(var)->value = NIL;
    l->result = tcl_eval(s, code, NULL, timeout);
    free(code);
    L = s->L;
    Obj rep = SYM(var)->value;
    SYM(var)->value = NIL;
    char *text = NULL;
    size_t tlen = 0;
    if (is_cons(rep)) {
        char *file = report_cstr(report_nth(rep, 3));
        if (file) { free(l->path); l->path = file; }
        l->forms = report_int(report_nth(rep, 0));
        Obj notes = report_nth(rep, 1), defs = report_nth(rep, 2);
        l->nnotes = report_len(notes);
        l->notes = (TclFileNote *)calloc((size_t)l->nnotes + 1, sizeof(TclFileNote));
        int i = 0;
        for (Obj p = notes; is_cons(p); p = CDR(p), i++) {
            Obj e = CAR(p);
            TclFileNote *nt = &l->notes[i];
            nt->line = report_int(report_nth(e, 0));
            nt->severity = report_cstr(report_nth(e, 1));
            nt->type = report_cstr(report_nth(e, 2));
            nt->message = report_cstr(report_nth(e, 3));
            nt->form = report_cstr(report_nth(e, 4));
            if (nt->severity && strcmp(nt->severity, "error") == 0) l->errors++;
            else l->warnings++;
        }
        l->ndefinitions = report_len(defs);
        l->definitions = (TclFileDefinition *)calloc((size_t)l->ndefinitions + 1, sizeof(TclFileDefinition));
        i = 0;
        for (Obj p = defs; is_cons(p); p = CDR(p), i++) {
            Obj e = CAR(p);
            TclFileDefinition *d = &l->definitions[i];
            d->kind = report_cstr(report_nth(e, 0));
            d->name = report_cstr(report_nth(e, 1));
            d->package = report_cstr(report_nth(e, 2));
            d->line = report_int(report_nth(e, 3));
            d->column = report_int(report_nth(e, 4));
        }
        report_text_add(&text, &tlen, "Loaded %s: %d form%s, %d error%s, %d warning%s\n", l->path, l->forms,
                 l->forms == 1 ? "" : "s", l->errors, l->errors == 1 ? "" : "s", l->warnings, l->warnings == 1 ? "" : "s");
        for (i = 0; i < l->nnotes; i++) {
            TclFileNote *nt = &l->notes[i];
            report_text_add(&text, &tlen, "[%s] line %d: %s: %s\n    in: %s\n", nt->severity, nt->line, nt->type, nt->message,
                     nt->form ? nt->form : "");
        }
        if (l->ndefinitions) {
            report_text_add(&text, &tlen, "Definitions:\n");
            for (i = 0; i < l->ndefinitions; i++) {
                TclFileDefinition *d = &l->definitions[i];
                report_text_add(&text, &tlen, "  %s %s  (%s:%d:%d)\n", d->kind, d->name, l->path, d->line, d->column);
            }
        }
        if (tlen && text[tlen - 1] == '\n') text[--tlen] = 0;
    }
    l->text = text ? text : report_strdup("");
    return l;
}

char *files_content_unreadable(TclSession *s, const char *content) {
    char *lit = files_lisp_string(content);
    size_t n = strlen(lit) + 40;
    char *code = (char *)malloc(n);
    snprintf(code, n, "(sys::%%check-readable %s)", lit);
    free(lit);
    Lisp *L = s->L;
    Obj var = intern_cstr(L, L->pkg_system, "*FILES-REPORT*");
    SYM(var)->value = NIL;
    TclResult *r = tcl_eval(s, code, "CL-USER", 10);
    free(code);
    L = s->L;
    char *msg = NULL;
    if (r->status != TCL_OK) {
        size_t m = (r->error_type ? strlen(r->error_type) : 5) + (r->error_message ? strlen(r->error_message) : 0) + 4;
        msg = (char *)malloc(m);
        snprintf(msg, m, "%s: %s", r->error_type ? r->error_type : "ERROR", r->error_message ? r->error_message : "");
    } else {
        msg = report_cstr(SYM(var)->value);
    }
    SYM(var)->value = NIL;
    tcl_result_free(r);
    return msg;
}

void tcl_file_load_free(TclFileLoad *l) {
    if (!l) return;
    tcl_result_free(l->result);
    free(l->path);
    free(l->text);
    for (int i = 0; i < l->nnotes; i++) {
        free(l->notes[i].severity); free(l->notes[i].type); free(l->notes[i].message); free(l->notes[i].form);
    }
    free(l->notes);
    for (int i = 0; i < l->ndefinitions; i++) {
        free(l->definitions[i].kind); free(l->definitions[i].name); free(l->definitions[i].package);
    }
    free(l->definitions);
    free(l);
}
