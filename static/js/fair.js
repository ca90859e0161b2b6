// Fair dice, checked in the browser (issue #31): the page's own recomputation of every die from
// the revealed seed and the contributions the log stores. The same derivation as rules/fair.py,
// step by step as docs/fair-dice.md states it (tests/rules/test_fair_js.py runs this file in
// Chromium against Python):
//
//   block(n, k) = HMAC-SHA256(key = the seed's 32 bytes,
//                             msg = ASCII "rollroom-dice-v1:{position}:{contribution}:{n}:{k}")
//
// cut into four unsigned big-endian 64-bit words; with m = b - a + 1 and
// limit = 2**64 - (2**64 mod m), the first word x < limit gives a + (x mod m); a word at or
// above the limit is rejected and the next one read (then block k + 1).
//
// HMAC-SHA256 and SHA-256 come from @noble/hashes, vendored unchanged in
// static/vendor/noble-hashes/<version>/ (its README: version, source, licence), in every
// browser. WebCrypto (crypto.subtle) exists only in a secure context (HTTPS, or localhost): a
// player on the GM's plain-HTTP address on the network had no check at all, and the check is
// there to protect players from the host. One code path for every page, rather than WebCrypto
// where it exists and noble elsewhere, so that what a player on HTTPS is shown was computed the
// same way as what a player on plain HTTP is shown, and the tests of one are tests of the other.
// Loaded on first use by import() (scripts from the site only, no inline script, no eval: the
// site's Content-Security-Policy allows nothing else), the path relative to this file's URL.
(function () {
  "use strict";

  const DOMAIN = "rollroom-dice-v1";
  const SPACE = 1n << 64n; // values of one 64-bit word
  const SEED = /^[0-9a-fA-F]{64}$/;
  const CONTRIBUTION = /^[0-9a-fA-F]{16,64}$/;
  const encoder = new TextEncoder();
  const keys = new Map(); // seed (lower case) -> Promise of its keyed HMAC, cloned per message
  // The vendored version's folder, relative to this file (its hashed name after collectstatic
  // sits in the same folder; the modules keep their own names beside their hashed copies).
  const NOBLE = "../vendor/noble-hashes/2.4.0/";
  let noble = null; // Promise of { hmac, sha256 }

  function hashes() {
    if (!noble) {
      noble = Promise.all([import(NOBLE + "hmac.js"), import(NOBLE + "sha2.js")]).then(
        ([hmacModule, sha2Module]) => ({ hmac: hmacModule.hmac, sha256: sha2Module.sha256 })
      );
    }
    return noble;
  }

  function hexBytes(hex) {
    const bytes = new Uint8Array(hex.length / 2);
    for (let i = 0; i < bytes.length; i += 1) {
      bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    }
    return bytes;
  }

  function checkSeed(seed) {
    if (typeof seed !== "string" || !SEED.test(seed)) {
      throw new TypeError("A dice seed is 64 hex characters (0-9, a-f).");
    }
    return seed.toLowerCase();
  }

  function checkContribution(contribution) {
    if (typeof contribution !== "string" || !CONTRIBUTION.test(contribution)) {
      throw new TypeError("A dice contribution is 16 to 64 hex characters (0-9, a-f).");
    }
    return contribution.toLowerCase();
  }

  // A whole number >= 0 (a safe Number or a BigInt), as a BigInt.
  function checkCount(value, what) {
    if (typeof value === "bigint" ? value >= 0n : Number.isSafeInteger(value) && value >= 0) {
      return BigInt(value);
    }
    throw new TypeError(what + " is a whole number >= 0.");
  }

  // The range a..b as [a, size] in BigInts, or null if it is not one (ends neither safe
  // Numbers nor BigInts, or a size outside 1..2**64).
  function range(a, b) {
    const whole = (end) => typeof end === "bigint" || Number.isSafeInteger(end);
    if (!whole(a) || !whole(b)) return null;
    const low = BigInt(a);
    const size = BigInt(b) - low + 1n;
    return size >= 1n && size <= SPACE ? [low, size] : null;
  }

  function hmacKey(seed) {
    let key = keys.get(seed);
    if (!key) {
      key = hashes().then(({ hmac, sha256 }) => hmac.create(sha256, hexBytes(seed)));
      keys.set(seed, key);
    }
    return key;
  }

  // Draw n's value as a BigInt; every input already checked.
  async function draw(key, contribution, position, n, low, size) {
    const limit = SPACE - (SPACE % size);
    for (let k = 0n; ; k += 1n) {
      const message = encoder.encode(
        DOMAIN + ":" + position + ":" + contribution + ":" + n + ":" + k
      );
      const mac = key.clone().update(message).digest();
      const block = new DataView(mac.buffer, mac.byteOffset, mac.byteLength);
      for (let i = 0; i < 32; i += 8) {
        const x = block.getBigUint64(i, false); // big-endian
        if (x < limit) return low + (x % size);
      }
    }
  }

  // Draw n (0-based) of the roll at `position`, in a..b: a Promise of a BigInt if a or b is
  // one, else of a Number.
  async function randint(seed, contribution, position, n, a, b) {
    seed = checkSeed(seed);
    contribution = checkContribution(contribution);
    position = checkCount(position, "A roll's position in the log");
    n = checkCount(n, "A draw number");
    const asked = range(a, b);
    if (!asked) throw new RangeError("A die's range must hold 1 to 2**64 faces.");
    const value = await draw(await hmacKey(seed), contribution, position, n, asked[0], asked[1]);
    return typeof a === "bigint" || typeof b === "bigint" ? value : Number(value);
  }

  // null when every [a, b, value] of `draws` is what the derivation gives for its place, else
  // the index of the first that is not (a malformed draw counts as one that is not).
  async function verifyDraws(seed, contribution, position, draws) {
    seed = checkSeed(seed);
    contribution = checkContribution(contribution);
    position = checkCount(position, "A roll's position in the log");
    const key = await hmacKey(seed);
    for (let n = 0; n < draws.length; n += 1) {
      const entry = draws[n];
      if (!Array.isArray(entry) || entry.length !== 3) return n;
      const asked = range(entry[0], entry[1]);
      const value = entry[2];
      if (!asked || !(typeof value === "bigint" || Number.isSafeInteger(value))) return n;
      const derived = await draw(key, contribution, position, BigInt(n), asked[0], asked[1]);
      if (derived !== BigInt(value)) return n;
    }
    return null;
  }

  // The seed's commitment: SHA-256 of its 32 bytes, lower-case hex.
  async function commitment(seed) {
    const bytes = hexBytes(checkSeed(seed));
    const digest = (await hashes()).sha256(bytes);
    return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
  }

  window.RollroomFair = Object.freeze({ randint, verifyDraws, commitment });
})();
