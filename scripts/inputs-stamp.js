// Up-to-date checks for the start-up build steps: a step is skipped when the SHA-256 of its inputs (paths and contents)
// equals the stamp written beside its outputs after its last success, and those outputs still exist.
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

/** Every file under `dir` (relative to the repository) whose name passes `accept`, sorted so the hash is stable. */
function filesUnder(dir, accept) {
  const found = [];
  const walk = (current) => {
    for (const entry of fs.readdirSync(path.join(ROOT, current), { withFileTypes: true })) {
      const relative = path.posix.join(current, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (accept(relative)) found.push(relative);
    }
  };
  walk(dir);
  return found.sort();
}

function hashInputs(files) {
  const hash = createHash('sha256');
  for (const file of files) {
    const full = path.join(ROOT, file);
    hash.update(`${file}\0`);
    hash.update(fs.existsSync(full) ? fs.readFileSync(full) : '(absent)');
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** True when the stamp holds `hash` and every output exists. */
function isUpToDate(stampFile, hash, outputs) {
  const stamp = path.join(ROOT, stampFile);
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8').trim() !== hash) return false;
  return outputs.every((output) => fs.existsSync(path.join(ROOT, output)));
}

function writeStamp(stampFile, hash) {
  fs.mkdirSync(path.dirname(path.join(ROOT, stampFile)), { recursive: true });
  fs.writeFileSync(path.join(ROOT, stampFile), `${hash}\n`);
}

module.exports = { ROOT, filesUnder, hashInputs, isUpToDate, writeStamp };
