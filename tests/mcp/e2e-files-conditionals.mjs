// e2e-files-conditionals.mjs: nested reader conditionals in the file tools (issue 12), through the
// official MCP SDK client. In "#+(and) #+(or) (c) (d)" the false #+(or) skips (c) and the true
// #+(and) governs the next datum, so the reader reads the whole text as one form, (d). Under a false
// outer conditional the inner one is still decided (as SBCL does): in "#-(and) #+(or) (f) (g)" the
// #+(or) skips (f) and what #-(and) skips is the object after it, (g). check-parens, read-lisp-file and edit-lisp-form must see the forms as the reader
// does, under the session's *features*.
// Usage: node e2e-files-conditionals.mjs TINYCL
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { check, text, sc, ok, connect, finish } from "./helpers.mjs";

const bin = process.argv[2];

const dir = mkdtempSync(join(tmpdir(), "tinycl-conditionals-"));
const file = join(dir, "nested.lisp");
const source = `;;;; nested reader conditionals
#+(and) #+(or) (defun c () :c) (defun d () :d)
(defun e () :e)
#-(and) #+(or) (defun f () :f) (defun g () :g)
#+(and) #+(or) (defun h () :h) #+(or) (defun i () :i) (defun j () :j)
`;
writeFileSync(file, source);

let client;
try {
  client = await connect(bin, "tinycl-e2e-files-conditionals");
  const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });

  // what the reader itself reads from the file
  let r = await call("evaluate-lisp", { code: `(with-open-file (in ${JSON.stringify(file)}) (loop for x = (read in nil in) until (eq x in) collect (second x)))` });
  check("the reader reads D, E, J", ok(r) && sc(r).values && sc(r).values[0] === "(D E J)", text(r));

  r = await call("check-parens", { path: file });
  check("check-parens: the reader's three forms, five data skipped", ok(r) && sc(r).balanced && sc(r).forms === 3 && sc(r).skipped === 5, JSON.stringify(sc(r)));
  r = await call("check-parens", { code: "#+(and) #+(or) (c) (d)" });
  check("check-parens: a true conditional governs the form after the skipped one", sc(r).forms === 1 && sc(r).skipped === 1, JSON.stringify(sc(r)));

  r = await call("read-lisp-file", { path: file });
  const forms = sc(r).forms || [];
  const kept = forms.filter((f) => !f.skipped);
  check("read-lisp-file: the kept forms are the reader's", ok(r) && kept.map((f) => f.name).join(",") === "d,e,j", JSON.stringify(forms));
  const d = forms.find((f) => f.name === "d") || {};
  check("read-lisp-file: (d) is read under #+(and), from the start of its line", d.condition === "#+(and)" && d.start_line === 2, JSON.stringify(d));
  const j = forms.find((f) => f.name === "j") || {};
  check("read-lisp-file: a prefix reaches over every skipped datum", j.condition === "#+(and)" && j.start_line === 5, JSON.stringify(j));
  const f = forms.find((x) => x.name === "f") || {};
  check("read-lisp-file: under a false outer conditional the inner one still skips (f)", f.skipped && f.condition === "#-(and) #+(or)", JSON.stringify(f));
  check("read-lisp-file: ... and the outer one skips the object after it, (g)", (forms.find((x) => x.name === "g") || {}).skipped === true, JSON.stringify(forms));

  r = await call("edit-lisp-form", { path: file, form_type: "defun", form_name: "d", operation: "replace", content: "(defun d () :new-d)" });
  check("edit-lisp-form: replacing (d) replaces the form the reader reads", ok(r) && sc(r).written, text(r));
  const after = readFileSync(file, "utf8");
  check("edit-lisp-form: the rest of the file is unchanged", after === source.replace("#+(and) #+(or) (defun c () :c) (defun d () :d)", "(defun d () :new-d)"), after);
  r = await call("edit-lisp-form", { path: file, form_type: "defun", form_name: "c", operation: "delete" });
  check("edit-lisp-form: the skipped (c) is gone with the form that held it", r.isError && text(r).includes("FORM-NOT-FOUND"), text(r));
} catch (e) {
  check("conditionals: ran to the end", false, String((e && e.stack) || e));
} finally {
  if (client) await client.close();
}

rmSync(dir, { recursive: true, force: true });
finish("e2e-files-conditionals");
