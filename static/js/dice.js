// The fair-dice page (templates/rolls/dice.html, issue #31): the browser itself recomputes
// every die of the revealed seed's rolls from the seed, each roll's random part and its number
// (static/js/fair.js, the algorithm of docs/fair-dice.md), and checks the seed against its
// commitment. Nothing the server says about the outcome is trusted: a row is marked by what
// this script finds. No inline script: the site's Content-Security-Policy allows none.
(function () {
  "use strict";

  function mark(cell, ok, text) {
    if (!cell) return;
    cell.textContent = text;
    cell.classList.toggle("ok", ok);
    cell.classList.toggle("bad", !ok);
  }

  function sameNumbers(left, right) {
    return left.length === right.length && left.every((value, i) => value === right[i]);
  }

  // The numbers between which the seed's rolls lie: after the entry that announced it, before
  // the next announcement (none: no bound).
  function bounds(section) {
    const number = (text) => (text ? Number(text) : null);
    return [number(section.dataset.announced), number(section.dataset.until)];
  }

  async function rowProblem(fair, seed, commitment, row, [announced, until]) {
    if (row.dataset.commitment !== commitment) return "it names another seed";
    const at = Number(row.dataset.position);
    if ((announced !== null && at <= announced) || (until !== null && at >= until)) {
      return "it was rolled outside its seed's time in the log";
    }
    const draws = JSON.parse(row.dataset.draws);
    const position = Number(row.dataset.position);
    // A record no roll could have (a contribution that is not 16 to 64 hex characters, draws
    // that are not a list) is this roll's failure, as verify_rolls says: the other rows are
    // still checked (docs/fair-dice.md, "What does not verify").
    if (!Array.isArray(draws)) return "its dice record is malformed";
    let wrong;
    try {
      wrong = await fair.verifyDraws(seed, row.dataset.contribution, position, draws);
    } catch (error) {
      if (error instanceof TypeError) return "its dice record is malformed";
      throw error;
    }
    if (wrong !== null) return "die " + (wrong + 1) + " is not what the seed gives";
    if (row.dataset.shown) {
      // The dice the roll shows, as the draws they must be: [1, faces, face] each, in order.
      const shown = JSON.parse(row.dataset.shown);
      const same = shown.length === draws.length &&
        shown.every((die, i) => Array.isArray(draws[i]) && sameNumbers(die, draws[i]));
      if (!same) return "the dice it shows are not the ones drawn";
    }
    return null;
  }

  async function check(section) {
    const fair = window.RollroomFair;
    const summary = document.getElementById("fair-summary");
    const seed = section.dataset.seed;
    const commitment = section.dataset.commitment;
    const seedOk = (await fair.commitment(seed)) === commitment;
    mark(section.querySelector("[data-seed-check]"), seedOk,
      seedOk ? "✓ the seed hashes to it" : "✗ the seed does not hash to it");
    let good = 0;
    let bad = 0;
    for (const row of section.querySelectorAll("tr[data-roll]")) {
      const why = seedOk
        ? await rowProblem(fair, seed, commitment, row, bounds(section))
        : "the seed is not the one committed";
      mark(row.querySelector("[data-check]"), !why, why ? "✗ " + why : "✓ recomputed");
      if (why) bad += 1;
      else good += 1;
    }
    summary.dataset.state = seedOk && !bad ? "good" : "bad";
    const rolls = (n) => n + (n === 1 ? " roll" : " rolls");
    let said = "the seed matches its commitment.";
    if (!seedOk) said = "the seed does not match its commitment.";
    else if (bad) said = bad + " of the " + rolls(good + bad) + " above " +
      (bad === 1 ? "does" : "do") + " not verify.";
    else if (good) said = "the seed matches its commitment, and each of the " + rolls(good) +
      " above is what it gives.";
    summary.textContent = "Checked by your browser: " + said;
  }

  document.addEventListener("DOMContentLoaded", function () {
    const section = document.getElementById("fair-check");
    if (!section) return;
    const summary = document.getElementById("fair-summary");
    check(section).catch(function (error) {
      summary.dataset.state = "bad";
      summary.textContent = "The check could not run: " + error.message;
    });
  });
})();
