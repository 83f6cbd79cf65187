// Add compiled bytecode to pure-Python wheels, compiled by the Pyodide the app ships (its Python, its
// magic number), so the browser imports them without compiling their source on every cold boot:
//
//   node scripts/precompile_wheels.mjs <pyodide-dir> <wheel>...      (each wheel is rewritten in place)
//
// Each `x.py` gets `x.pyc` beside it, where Python's zip importer looks (the app imports the wheels as
// zip files on `sys.path`, web/src/worker/wheels.ts), an unchecked hash-based pyc (PEP 552): used as is,
// never compared with the source. The sources stay, for tracebacks and `inspect`; an unpacked wheel
// imports them and ignores the pyc.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, ...wheels] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: pyodideDir + path.sep });
const compileWheel = pyodide.runPython(`
import io, zipfile
from importlib.util import source_hash
from importlib._bootstrap_external import _code_to_hash_pyc

def compile_wheel(data):
    source = zipfile.ZipFile(io.BytesIO(data.to_py()))
    names = set(source.namelist())
    out = io.BytesIO()
    count = 0
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as wheel:
        for info in source.infolist():
            body = source.read(info)
            wheel.writestr(info, body)
            if not info.filename.endswith(".py"):
                continue
            pyc = info.filename[:-3] + ".pyc"
            if pyc in names:
                continue
            try:
                code = compile(body, info.filename, "exec", dont_inherit=True)
            except SyntaxError:  # a file never imported (templates, tests for another Python): left as is
                continue
            wheel.writestr(pyc, _code_to_hash_pyc(code, source_hash(body), checked=False))
            count += 1
    return out.getvalue(), count

compile_wheel
`);
for (const file of wheels) {
  const result = compileWheel(new Uint8Array(readFileSync(file)));
  const [bytes, count] = result.toJs();
  result.destroy();
  writeFileSync(file, bytes);
  console.log(`precompiled ${count} modules in ${path.basename(file)}`);
}
