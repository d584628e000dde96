// The table's sounds, made on the spot with the Web Audio API (oscillators: no audio file is
// fetched, nothing the Content-Security-Policy has to allow): a short call when it becomes the
// person's turn (to play, or to declare their exposures), and when a trick carrying points is
// taken one sound if its points went to the person (or their side when the match scores by
// partners) and another if they went to someone else — every such trick, those of a deal played
// out at once too (state.js's noteTrick, from the server's trick messages).  A spectator hears nothing, and a seat in
// 托管 no turn (its computer plays).  Only when the header's sound switch is on (off by default:
// settings.js says why).
//
// Browsers start audio only after a gesture: the AudioContext is made (or resumed) on a click or
// a key press while the switch is on, and by the switch itself.  Until then a cue is not played.
// Cues that come together (a trick taken, then the person's turn) follow one another, but none
// waits long: after a reconnection the missed tricks do not queue up a string of sounds.
//
// Test surface: each cue actually played sets <html data-last-sound> to "turn", "won" or "lost"
// and counts up <html data-sounds> (0 until then).
//
// May import: state.js, settings.js.

import { declaring, myAuto, mySeat, myTurn, page, soundOn, subscribe, takeCues } from "./state.js";

// The longest a cue waits for the one before it to end, in seconds.
const MAX_WAIT = 0.25;

let ctx = null;        // the AudioContext, once a gesture allowed it
let freeAt = 0;        // ctx.currentTime when the last cue scheduled ends
let seen = null;       // the server state looked at last
let turnKey = null;    // the person's turn the last "turn" cue was for (null: not their turn)

/** One note from `at` (seconds, context time): a quick attack and a soft decay; its length. */
function note(at, freq, length, { type = "sine", gain = 0.12, glide = null } = {}) {
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  if (glide) osc.frequency.exponentialRampToValueAtTime(glide, at + length);
  amp.gain.setValueAtTime(0.0001, at);
  amp.gain.exponentialRampToValueAtTime(gain, at + 0.012);
  amp.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(amp).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
  return length;
}

// Each cue schedules its notes from `at` and returns how long it lasts.
const CUES = {
  // Your turn: two light, rising notes (E6, A6), soft enough to hear thirteen times a deal.
  turn(at) {
    note(at, 1318.5, 0.09, { gain: 0.07 });
    return 0.1 + note(at + 0.1, 1760, 0.12, { gain: 0.07 });
  },
  // The points came to you: the cards land on your side, two low warm notes (G4, C5).
  won(at) {
    note(at, 392, 0.11, { type: "triangle", gain: 0.16 });
    return 0.12 + note(at + 0.12, 523.25, 0.2, { type: "triangle", gain: 0.16 });
  },
  // The points went elsewhere: one short note sliding away (A5 down to E5).
  lost: (at) => note(at, 880, 0.22, { gain: 0.08, glide: 659.25 }),
};

/** Play `cue` ("turn", "won", "lost") if the switch is on and a gesture has allowed audio. */
function play(cue) {
  if (!soundOn() || !ctx || ctx.state === "closed") return;
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  const now = ctx.currentTime;
  const at = Math.max(now, Math.min(freeAt, now + MAX_WAIT));
  freeAt = at + CUES[cue](at);
  const root = document.documentElement;
  root.dataset.lastSound = cue;
  root.dataset.sounds = String(Number(root.dataset.sounds ?? 0) + 1);
}

/** After each update: which cues the server's new state calls for. */
function listen() {
  const s = page.state;
  if (s === seen) return;
  seen = s;
  const cues = takeCues();  // each trick with points that ended since, in order
  if (!s || !mySeat()) {
    turnKey = null;
    return;
  }
  for (const cue of cues) play(cue);
  const plays = s.trick?.plays?.length ?? 0;
  const key = waiting() ? `${s.match_id}/${s.deal_index}/${s.phase}/${s.tricks_played}/${plays}` : null;
  if (key && key !== turnKey) {
    // Once the update is done: a turn the page answers by itself at once (an action already on
    // its way) is not called out.
    queueMicrotask(() => {
      if (waiting() && !page.pending && page.state === s) play("turn");
    });
  }
  turnKey = key;
}

/** Whether the table waits for the person (not for their seat's computer in 托管). */
function waiting() {
  return (myTurn() || declaring()) && !myAuto();
}

/**
 * Follow the switch: on, make or resume the AudioContext (call it from a click or a key press);
 * off, let the context rest.
 */
export function unlockSound() {
  if (!soundOn()) {
    if (ctx?.state === "running") ctx.suspend().catch(() => {});
    return;
  }
  const Context = globalThis.AudioContext ?? globalThis.webkitAudioContext;
  if (!Context) return;
  try {
    ctx ??= new Context();
  } catch {
    return;  // no audio on this device: the page stays silent
  }
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
}

/** Listen to the table's updates, and to the person's first gesture that may start the audio. */
export function startSound() {
  document.documentElement.dataset.sounds = "0";
  subscribe(listen);
  const gesture = () => { if (soundOn()) unlockSound(); };
  for (const type of ["click", "keydown"]) document.addEventListener(type, gesture, { capture: true });
}
