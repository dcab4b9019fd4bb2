// NestJS 12 ships ES modules only, and Jest on Node 20 cannot require() them (Node itself can, since 20.19).
// This transform turns those packages into CommonJS for Jest only; the built app loads them natively.
const ts = require('typescript');
const { createHash } = require('node:crypto');

const IMPORT_META_URL = /\bimport\.meta\.url\b/g;
// A CommonJS build (.cjs) that keeps native `import()` calls (Mastra's): only those become require(), which Jest can
// run; the rest is CommonJS already and needs no compiler.
const DYNAMIC_IMPORT = /(?<![\w$.])import\(/g;
// appended, hoisted: a leading statement would end the file's 'use strict' directive
const REQUIRE_AS_IMPORT = '\nfunction __importAsRequire(specifier) { return Promise.resolve().then(() => require(specifier)); }\n';
// ESM code may declare its own `require` (createRequire); in CommonJS that name is the wrapper's parameter already
const OWN_REQUIRE = /^(\s*)(?:const|let|var) require = /gm;

module.exports = {
  process(sourceText, sourcePath) {
    if (sourcePath.endsWith('.cjs')) {
      if (sourceText.search(DYNAMIC_IMPORT) === -1) return { code: sourceText };
      return { code: `${sourceText.replace(DYNAMIC_IMPORT, '__importAsRequire(')}${REQUIRE_AS_IMPORT}` };
    }
    const { outputText } = ts.transpileModule(sourceText, {
      fileName: sourcePath,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        allowJs: true,
        sourceMap: false,
      },
    });
    const code = outputText
      .replace(IMPORT_META_URL, "require('node:url').pathToFileURL(__filename).href")
      .replace(OWN_REQUIRE, '$1require = ');
    return { code };
  },
  getCacheKey(sourceText, sourcePath) {
    return createHash('sha1').update('esm-to-cjs-3').update(sourcePath).update(sourceText).digest('hex');
  },
};
