/*
 * gongzhu.rules._fastplay2: the C fast path for TWO-DECK deals (拱双猪; the expert's search).
 *
 * A position (Fp2Pos) is a plain struct: each hand as two 52-bit masks (cards held at least
 * once / twice), the exposed copies still bound by R4.3 the same way, the point cards each seat
 * has taken (copies counted), the trick in progress (single cards or two-card plays) and every
 * option that changes two-deck play or scoring.  Python sees it as an opaque bytes blob
 * (gongzhu/search/fast2.py builds it from a Deal or from a player's sampled world, and refuses
 * positions no deal can reach; this module only refuses what it cannot play safely: fields out
 * of range, and hands with more legal plays than MAX_PLAYS).
 *
 * Card index = suit * 13 + (rank - 2), suits S H C D = 0 1 2 3 (cards.py, R1).
 * Legal plays are a transcription of rules/legal.py's cascade (R5.3 shape and follow, then R4.3
 * with R4.5's copies, then R5.2 discard colour, each only if it leaves a play); playing is a
 * transcription of Deal._apply / Deal._finish_trick (R4.5: where the restriction binds the free
 * copy leaves, elsewhere the exposed one; R5.3 pair ranking); scoring of scoring.raw_scores for
 * two decks (R6.2, R4.5).
 *
 * Playout policies: 0 plays uniformly random legal plays, 1 a cheap heuristic player
 * (policy_heuristic2) for the expert's simulated continuations.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "_fastcommon.h"

#define NONE 0xFF          /* no card: the second card of a single play, an empty trick slot */
/* Legal plays of one position: a hand of a deal holds at most 26 cards, d different ones of which
 * p twice (d + p <= 26), so at most C(d, 2) + p <= C(26, 2) = 325 two-card answers; the masks can
 * say more (up to 780: every card but one suit's, twice, answering a pair lead), which fp2_legal
 * refuses (FP2_TOO_MANY_PLAYS) rather than write past the end of its array. */
#define MAX_PLAYS 400
#define MAX_STEPS 104      /* plays in a deal: at least one card each */
#define FP2_MAGIC 0x32445A47u /* "GZD2" */

/* What fp2_legal and fp2_playout return when they cannot go on (set_play_error explains it). */
enum { FP2_NO_PLAY = -1, FP2_TOO_MANY_PLAYS = -2, FP2_TOO_LONG = -3 };

/* ------------------------------------------------------------------ the position */

typedef struct {
    uint64_t h1[4], h2[4]; /* cards held at least once / twice */
    uint64_t r1[4], r2[4]; /* exposed copies in hand bound by R4.3 (kinds shown/auto): >= 1 / 2 */
    uint64_t c1[4], c2[4]; /* point cards taken: at least one copy / both copies */
    uint32_t magic;
    uint8_t trick[4][2];   /* the trick in progress in playing order; [i][1] NONE for a single */
    int8_t n_trick;        /* plays in the trick in progress, 0..3 */
    int8_t leader;         /* leader of the trick in progress (or next leader) */
    int8_t turn;           /* who plays next */
    int8_t led;            /* suit led in the trick in progress, -1 when none */
    int8_t pair;           /* the trick in progress was led with a pair (R5.3) */
    int8_t offender;       /* R5.2 penalty: first offender of this trick, -1 when none */
    uint8_t suits_led;     /* bit per suit led in a finished trick */
    uint8_t must_c2;       /* R5.1 club2_must: the next lead must contain a ♣2 */
    uint8_t step;          /* next seat = (seat + step) % 4: 1 clockwise, 3 counter-clockwise (R1) */
    uint8_t edbsl;         /* exposed_discard_before_suit_led (R4.3 tournament rule) */
    uint8_t discard_color; /* COLOR_OFF / COLOR_ENFORCE / COLOR_PENALTY (R5.2) */
    uint8_t heart_book;    /* heart_values=book (R2) */
    uint8_t exposed[4];    /* copies exposed of QS JD TC AH (R4.5), 0..2 */
    uint8_t pad[4];        /* zero */
} Fp2Pos;

/* No implicit padding: equal positions give equal bytes. */
_Static_assert(sizeof(Fp2Pos) == 224, "Fp2Pos has no implicit padding");

/* A play: one card (b == NONE) or two cards a <= b (a pair when a == b). */
typedef struct {
    uint8_t a, b;
} Fp2Play;


/* R4.5: the transformer's multiplier by (copies exposed, copies taken). */
static const int TC_MULT[3][3] = {{1, 2, 4}, {1, 4, 8}, {1, 4, 16}};

static inline int copies(uint64_t m1, uint64_t m2, int c) { return (int)(m1 >> c & 1) + (int)(m2 >> c & 1); }

static inline int popc(uint64_t m) { return __builtin_popcountll(m); }

/* Add one copy of card c to the multiset (m1, m2). */
static inline void add_copy(uint64_t *m1, uint64_t *m2, int c)
{
    if (*m1 >> c & 1)
        *m2 |= BIT(c);
    else
        *m1 |= BIT(c);
}

static inline int play_last(Fp2Play q) { return q.b == NONE ? q.a : q.b; }

/* ------------------------------------------------------------------ rules */

/* Whether card c played now falls under R4.3 (legal.restricted_context). */
static inline int restricted_context(const Fp2Pos *p, int c)
{
    int suit = c / 13;
    if (p->suits_led >> suit & 1)
        return 0;
    if (p->n_trick == 0 || suit == p->led)
        return 1;
    return p->edbsl;
}

/* Whether the mover's play q needs an exposed copy where R4.3 binds (legal.uses_restricted). */
static int binds(const Fp2Pos *p, int c, int k)
{
    int s = p->turn;
    return restricted_context(p, c) && k > copies(p->h1[s], p->h2[s], c) - copies(p->r1[s], p->r2[s], c);
}

static int uses_restricted(const Fp2Pos *p, Fp2Play q)
{
    if (q.b == q.a)
        return binds(p, q.a, 2);
    return binds(p, q.a, 1) || (q.b != NONE && binds(p, q.b, 1));
}

/* Cards of a following play not of the led suit but of its colour (legal.same_color_makeups). */
static inline int makeups(const Fp2Pos *p, Fp2Play q)
{
    uint64_t m = COLOR_OF_SUIT[(int)p->led] & ~SUIT_MASK((int)p->led);
    return (int)(m >> q.a & 1) + (q.b != NONE ? (int)(m >> q.b & 1) : 0);
}

/* The lists of legal plays are written by push() alone: the n-th play goes to out[n] while
 * n < MAX_PLAYS; past that nothing is written and the count becomes FP2_TOO_MANY_PLAYS, which
 * every later push keeps (the push_* helpers stop at it). */
static inline int push(Fp2Play *out, int n, Fp2Play q)
{
    if (n < 0 || n >= MAX_PLAYS)
        return FP2_TOO_MANY_PLAYS;
    out[n] = q;
    return n + 1;
}

static int push_singles(Fp2Play *out, int n, uint64_t m)
{
    for (; m && n >= 0; m &= m - 1)
        n = push(out, n, (Fp2Play){(uint8_t)__builtin_ctzll(m), NONE});
    return n;
}

static int push_pairs(Fp2Play *out, int n, uint64_t m)
{
    for (; m && n >= 0; m &= m - 1) {
        uint8_t c = (uint8_t)__builtin_ctzll(m);
        n = push(out, n, (Fp2Play){c, c});
    }
    return n;
}

/* Every two different cards of m, a < b. */
static int push_twos(Fp2Play *out, int n, uint64_t m)
{
    for (uint64_t x = m; x && n >= 0; x &= x - 1) {
        int a = __builtin_ctzll(x);
        for (uint64_t y = x & (x - 1); y && n >= 0; y &= y - 1)
            n = push(out, n, (Fp2Play){(uint8_t)a, (uint8_t)__builtin_ctzll(y)});
    }
    return n;
}

/* The legal plays of the player to move (legal.cascade, last stage) in out[0..MAX_PLAYS); returns
 * how many, or FP2_TOO_MANY_PLAYS (out holds no list then) for a hand no deal deals. */
static int fp2_legal(const Fp2Pos *p, Fp2Play *out)
{
    int s = p->turn, n = 0;
    uint64_t h1 = p->h1[s], h2 = p->h2[s];
    if (p->n_trick == 0) {
        if (p->must_c2) { /* R5.1: the first lead contains a ♣2 */
            h1 &= BIT(CARD_C2);
            h2 &= BIT(CARD_C2);
        }
        n = push_singles(out, n, h1);
        n = push_pairs(out, n, h2);
    } else if (!p->pair) { /* R5.2: follow suit with a single */
        uint64_t follow = h1 & SUIT_MASK((int)p->led);
        n = push_singles(out, n, follow ? follow : h1);
    } else { /* R5.3: answer a pair lead with two cards */
        uint64_t x = SUIT_MASK((int)p->led);
        if (h2 & x) {
            n = push_pairs(out, n, h2 & x);
        } else if (popc(h1 & x) >= 2) {
            n = push_twos(out, n, h1 & x);
        } else if (h1 & x) { /* the one card of the suit, made up with any other */
            int o = __builtin_ctzll(h1 & x);
            for (uint64_t m = h1 & ~BIT(o); m && n >= 0; m &= m - 1) {
                int c = __builtin_ctzll(m);
                n = push(out, n, c < o ? (Fp2Play){(uint8_t)c, (uint8_t)o} : (Fp2Play){(uint8_t)o, (uint8_t)c});
            }
        } else {
            n = push_twos(out, n, h1);
            n = push_pairs(out, n, h2);
        }
    }
    if (n < 0)
        return n;
    /* R4.3 / R4.5, only if it leaves a play. */
    int free = 0;
    for (int i = 0; i < n; i++)
        free += !uses_restricted(p, out[i]);
    if (free && free < n) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (!uses_restricted(p, out[i]))
                out[k++] = out[i];
        n = k;
    }
    /* R5.2 discard_color=enforce: as many cards of the led colour as possible. */
    if (p->n_trick > 0 && p->discard_color == COLOR_ENFORCE && n > 1) {
        int best = 0, k = 0;
        for (int i = 0; i < n; i++)
            if (makeups(p, out[i]) > best)
                best = makeups(p, out[i]);
        for (int i = 0; i < n; i++)
            if (makeups(p, out[i]) == best)
                out[k++] = out[i];
        n = k;
    }
    return n;
}

static inline int fp2_is_over(const Fp2Pos *p) { return p->n_trick == 0 && p->h1[(int)p->turn] == 0; }

/* R5.3 ranking key of a two-card play in the led suit: in ♠♥♣ two non-pair cards beat any pair,
 * in ♦ a pair beats two non-pair cards; then the higher card, then the lower (deal.two_card_class,
 * deal._two_card_key). */
static inline int pair_key(int led, const uint8_t *q)
{
    int is_pair = q[0] == q[1];
    int top = is_pair == (led == 3);
    int hi = q[0] > q[1] ? q[0] : q[1], lo = q[0] > q[1] ? q[1] : q[0];
    return top << 16 | hi << 8 | lo;
}

/* Playing index of the winning play of the trick in progress (n_trick >= 1). */
static int trick_best(const Fp2Pos *p)
{
    int led = p->led, best_i = 0;
    if (!p->pair) {
        int hi = p->trick[0][0];
        for (int i = 1; i < p->n_trick; i++) {
            int c = p->trick[i][0];
            if (c > hi && c / 13 == led) { /* identical copies: the first played wins */
                hi = c;
                best_i = i;
            }
        }
        return best_i;
    }
    int key = pair_key(led, p->trick[0]);
    for (int i = 1; i < p->n_trick; i++) {
        const uint8_t *q = p->trick[i];
        if (q[0] / 13 == led && q[1] / 13 == led && pair_key(led, q) > key) {
            key = pair_key(led, q);
            best_i = i;
        }
    }
    return best_i;
}

/* Play q (one of legal[0..n_legal)) for the player to move. */
static void fp2_apply(Fp2Pos *p, Fp2Play q, const Fp2Play *legal, int n_legal)
{
    int s = p->turn;
    if (p->n_trick > 0 && p->discard_color == COLOR_PENALTY && p->offender < 0 &&
        (q.a / 13 != p->led || play_last(q) / 13 != p->led)) {
        /* R5.2 penalty: fewer cards of the led colour than some legal play had. */
        int best = 0;
        for (int i = 0; i < n_legal; i++)
            if (makeups(p, legal[i]) > best)
                best = makeups(p, legal[i]);
        if (makeups(p, q) < best)
            p->offender = (int8_t)s;
    }
    if (p->n_trick == 0) {
        p->led = (int8_t)(q.a / 13);
        p->pair = q.b != NONE;
        p->leader = (int8_t)s;
        p->must_c2 = 0;
    }
    int cards[2] = {q.a, q.b}, n = q.b == NONE ? 1 : (q.a == q.b ? 1 : 2);
    for (int i = 0; i < n; i++) {
        int c = cards[i];
        int k = (q.b != NONE && q.a == q.b) ? 2 : 1;
        int held = copies(p->h1[s], p->h2[s], c) - k;
        int bound = copies(p->r1[s], p->r2[s], c);
        /* R4.5: where the restriction binds the free copy leaves; elsewhere the exposed one. */
        if (restricted_context(p, c))
            bound = bound < held ? bound : held;
        else
            bound = bound - k > 0 ? bound - k : 0;
        uint64_t bit = BIT(c);
        p->h1[s] = held >= 1 ? p->h1[s] | bit : p->h1[s] & ~bit;
        p->h2[s] = held >= 2 ? p->h2[s] | bit : p->h2[s] & ~bit;
        p->r1[s] = bound >= 1 ? p->r1[s] | bit : p->r1[s] & ~bit;
        p->r2[s] = bound >= 2 ? p->r2[s] | bit : p->r2[s] & ~bit;
    }
    p->trick[(int)p->n_trick][0] = q.a;
    p->trick[(int)p->n_trick][1] = q.b;
    p->n_trick++;
    if (p->n_trick < 4) {
        p->turn = (int8_t)((s + p->step) & 3);
        return;
    }
    int winner = (p->leader + trick_best(p) * p->step) & 3;
    int taker = p->offender >= 0 ? p->offender : winner;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) {
            int c = p->trick[i][j];
            if (c != NONE && (POINT_MASK >> c & 1))
                add_copy(&p->c1[taker], &p->c2[taker], c);
        }
    p->suits_led |= (uint8_t)(1u << p->led);
    memset(p->trick, NONE, sizeof p->trick);
    p->n_trick = 0;
    p->led = -1;
    p->pair = 0;
    p->offender = -1;
    p->leader = p->turn = (int8_t)winner;
}

/* ------------------------------------------------------------------ scoring (R6.2, R4.5) */

/* Raw score of a seat that took the point cards (m1, m2); scoring.raw_scores for two decks. */
static int64_t fp2_score(const Fp2Pos *p, uint64_t m1, uint64_t m2)
{
    const int *hv = p->heart_book ? HEART_BOOK : HEART_STANDARD;
    int64_t f_qs = 1 << p->exposed[SP_QS], f_jd = 1 << p->exposed[SP_JD];
    int64_t f_tc = 1 << p->exposed[SP_TC], f_ah = 1 << p->exposed[SP_AH];
    uint32_t hh1 = (uint32_t)(m1 >> 13 & SUIT_BITS), hh2 = (uint32_t)(m2 >> 13 & SUIT_BITS);
    int n_hearts = __builtin_popcount(hh1) + __builtin_popcount(hh2);
    int64_t hsum = 0;
    for (uint32_t m = hh1; m; m &= m - 1)
        hsum += hv[__builtin_ctz(m)];
    for (uint32_t m = hh2; m; m &= m - 1)
        hsum += hv[__builtin_ctz(m)];
    int n_pig = copies(m1, m2, CARD_QS), n_sheep = copies(m1, m2, CARD_JD), t = copies(m1, m2, CARD_TC);
    int64_t h = f_ah * hsum, pig = -100 * f_qs * n_pig, sheep = 100 * f_jd * n_sheep;
    int all_hearts = n_hearts == 26;
    if (all_hearts) /* 满红 */
        h = -h;
    int grand_slam = all_hearts && n_pig == 2 && n_sheep == 2 && t == 2;
    if (grand_slam) /* 满贯 */
        pig = -pig;
    if (!t)
        return h + pig + sheep;
    if (!n_hearts && !n_pig && !n_sheep) /* transformer alone */
        return 50 * t * f_tc;
    int64_t mult = grand_slam ? 2 * f_tc : TC_MULT[p->exposed[SP_TC]][t];
    return (h + pig + sheep) * mult;
}

static void fp2_raw_scores(const Fp2Pos *p, int64_t out[4])
{
    for (int s = 0; s < 4; s++)
        out[s] = fp2_score(p, p->c1[s], p->c2[s]);
}

/* ------------------------------------------------------------------ playout policies */

typedef int (*fp2_policy_fn)(const Fp2Pos *p, const Fp2Play *legal, int n, FpRng *rng);

/* Uniform over the legal plays (policy 0). */
static int policy_uniform2(const Fp2Pos *p, const Fp2Play *legal, int n, FpRng *rng)
{
    (void)p;
    (void)legal;
    return (int)rng_bounded(rng, (uint32_t)n);
}

/*
 * Policy 1, a cheap heuristic player from what the mover may know (its hand, the trick, the cards
 * still out, the cards taken, the exposures), as the one-deck policy_heuristic, with copies:
 *   single lead answered: the highest card under the trick's winner (an identical later copy
 *     loses); win a clean trick last with a high card; take the sheep when it is worth it;
 *   discard: ♠Q, then ♥A K Q J, ♠A/♠K while a ♠Q is out, middle hearts, a ♣10 where it hurts
 *     the taker, else the highest card of the shortest suit;
 *   pair lead answered: each legal two-card play is scored (what taking the trick is worth if it
 *     wins, what the cards it gets rid of are worth if it does not) and the best is played;
 *   lead: low in the safest suit; a low non-point pair in ♠♥♣ (which any two singles beat);
 *   about 10% of the choices uniformly random.
 */

/* The point cards of the trick in progress as a multiset. */
static void trick_points(const Fp2Pos *p, uint64_t *t1, uint64_t *t2)
{
    *t1 = *t2 = 0;
    for (int i = 0; i < p->n_trick; i++)
        for (int j = 0; j < 2; j++) {
            int c = p->trick[i][j];
            if (c != NONE && (POINT_MASK >> c & 1))
                add_copy(t1, t2, c);
        }
}

/* What taking the multiset (a1, a2) of cards now is worth to seat s (less a risk for a ♣10). */
static int64_t take_delta(const Fp2Pos *p, int s, uint64_t a1, uint64_t a2)
{
    a1 &= POINT_MASK;
    a2 &= POINT_MASK;
    if (!a1)
        return 0;
    uint64_t c1 = p->c1[s], c2 = p->c2[s];
    uint64_t n1 = c1 | a1, n2 = c2 | a2 | (c1 & a1);
    int64_t d = fp2_score(p, n1, n2) - fp2_score(p, c1, c2);
    return (a1 & BIT(CARD_TC)) ? d - HEUR_TC_RISK * (1 + (int)(a2 >> CARD_TC & 1)) : d;
}

/* take_delta of the trick's point cards plus the cards of q. */
static int64_t take_with(const Fp2Pos *p, int s, uint64_t t1, uint64_t t2, const int *cards, int n)
{
    for (int i = 0; i < n; i++)
        if (POINT_MASK >> cards[i] & 1)
            add_copy(&t1, &t2, cards[i]);
    return take_delta(p, s, t1, t2);
}

static int heur_follow(const Fp2Pos *p, uint64_t legal, uint64_t out)
{
    int s = p->turn;
    uint64_t t1, t2;
    trick_points(p, &t1, &t2);
    int win = p->trick[trick_best(p)][0];
    uint64_t under = legal & (BIT(win + 1) - 1), over = legal & ~under; /* a later copy loses */
    int jd = CARD_JD;
    if ((over & BIT(CARD_JD)) && !(out & DIAMONDS_OVER_J) && take_with(p, s, t1, t2, &jd, 1) > 0)
        return CARD_JD; /* the sheep wins this trick: take it back */
    uint64_t keep = under & ~BIT(CARD_JD);
    if (keep)
        under = keep;
    if (p->n_trick == 3) { /* last to play */
        if (over) {
            uint64_t clean = over & ~POINT_MASK;
            int c = clean ? hi_card(clean) : lo_card(over);
            if (clean && p->led == 3 && (out & BIT(CARD_JD)))
                c = lo_card(clean); /* keep the sheep catchers while a sheep is out */
            if (!under || take_with(p, s, t1, t2, &c, 1) >= 0)
                return c;
        }
        return hi_card(under);
    }
    if (!under) {
        uint64_t clean = over & ~POINT_MASK;
        return lo_card(clean ? clean : over);
    }
    int top = over ? hi_card(over) : -1;
    if (over && t1 && take_with(p, s, t1, t2, &top, 1) > 0)
        return top; /* a sheep is in it: take it */
    return hi_card(under);
}

static void suit_lengths(const Fp2Pos *p, int lens[4])
{
    int s = p->turn;
    for (int u = 0; u < 4; u++)
        lens[u] = popc(p->h1[s] & SUIT_MASK(u)) + popc(p->h2[s] & SUIT_MASK(u));
}

static int heur_discard(const Fp2Pos *p, uint64_t legal, uint64_t out)
{
    uint64_t cand = legal, x;
    if (p->discard_color == COLOR_PENALTY && p->offender < 0) {
        x = legal & COLOR_OF_SUIT[(int)p->led];
        if (x)
            cand = x;
    }
    int c = heur_discard_first(cand, out);
    if (c >= 0)
        return c;
    if (cand & BIT(CARD_TC)) {
        uint64_t t1, t2;
        trick_points(p, &t1, &t2);
        int taker = p->offender >= 0 ? p->offender : (p->leader + trick_best(p) * p->step) & 3;
        int tc = CARD_TC;
        if (take_with(p, taker, t1, t2, &tc, 1) < 0)
            return CARD_TC;
    }
    int lens[4];
    suit_lengths(p, lens);
    return heur_discard_rest(cand, lens);
}

static int heur_lead(const Fp2Pos *p, uint64_t legal, uint64_t out, uint64_t rbits)
{
    int lens[4];
    suit_lengths(p, lens);
    return heur_lead_core(legal, out, p->h1[(int)p->turn], lens, rbits);
}

/* What getting rid of card c on a trick someone else takes is worth, roughly. */
static int64_t shed_value(const Fp2Pos *p, int c)
{
    if (c == CARD_QS)
        return 100 << p->exposed[SP_QS];
    if (c == CARD_JD)
        return -(100 << p->exposed[SP_JD]);
    if (c / 13 == 1)
        return -(int64_t)HEART_STANDARD[c % 13] * (1 << p->exposed[SP_AH]) + 2 * (c % 13);
    return 2 * (c % 13); /* high cards are liabilities */
}

/* Answering a pair lead: score each legal two-card play. */
static int heur_pair_follow(const Fp2Pos *p, const Fp2Play *legal, int n)
{
    int s = p->turn, led = p->led, last = p->n_trick == 3;
    uint64_t t1, t2;
    trick_points(p, &t1, &t2);
    int best_key = pair_key(led, p->trick[trick_best(p)]);
    int best_i = 0;
    int64_t best_v = INT64_MIN;
    for (int i = 0; i < n; i++) {
        uint8_t q[2] = {legal[i].a, legal[i].b};
        int cards[2] = {q[0], q[1]};
        int beats = q[0] / 13 == led && q[1] / 13 == led && pair_key(led, q) > best_key;
        int64_t v;
        if (beats) {
            v = take_with(p, s, t1, t2, cards, 2) + (q[0] % 13 + q[1] % 13);
            if (!last)
                v -= 25; /* the later players may still dump points on it */
        } else {
            v = shed_value(p, q[0]) + shed_value(p, q[1]);
        }
        if (v > best_v) {
            best_v = v;
            best_i = i;
        }
    }
    return best_i;
}

static int find_play(const Fp2Play *legal, int n, int a, int b)
{
    for (int i = 0; i < n; i++)
        if (legal[i].a == a && legal[i].b == b)
            return i;
    return -1;
}

static int policy_heuristic2(const Fp2Pos *p, const Fp2Play *legal, int n, FpRng *rng)
{
    if (n == 1)
        return 0;
    uint64_t r = rng_next(rng);
    if ((r & 255) < HEUR_RANDOM_PER_256)
        return (int)rng_bounded(rng, (uint32_t)n);
    int s = p->turn;
    uint64_t out = 0;
    for (int t = 0; t < 4; t++)
        if (t != s)
            out |= p->h1[t];
    if (p->n_trick > 0 && p->pair)
        return heur_pair_follow(p, legal, n);
    uint64_t singles = 0;
    for (int i = 0; i < n; i++)
        if (legal[i].b == NONE)
            singles |= BIT(legal[i].a);
    if (!singles) /* only pairs to lead (a ♣2 pair): any of them */
        return (int)rng_bounded(rng, (uint32_t)n);
    int c;
    if (p->n_trick == 0) {
        c = heur_lead(p, singles, out, r >> 8);
        int i = find_play(legal, n, c, c);
        /* A low pair in ♠♥♣ loses to any two singles of the suit: a safe lead. */
        if (i >= 0 && c / 13 != 3 && c % 13 <= 5 && (r >> 16 & 1))
            return i;
    } else if (singles & SUIT_MASK((int)p->led)) {
        c = heur_follow(p, singles, out);
    } else {
        c = heur_discard(p, singles, out);
    }
    int i = find_play(legal, n, c, NONE);
    return i >= 0 ? i : (int)rng_bounded(rng, (uint32_t)n); /* a safety net: never happens */
}

static const fp2_policy_fn FP2_POLICIES[] = {policy_uniform2, policy_heuristic2};
#define FP2_N_POLICIES ((int)(sizeof(FP2_POLICIES) / sizeof(FP2_POLICIES[0])))

/* Per-seat policies, as the Python functions take them: one id, or four (N, E, S, W). */
typedef struct {
    fp2_policy_fn seat[4];
} Fp2Policy;

static const Fp2Policy UNIFORM_EVERYWHERE = {{policy_uniform2, policy_uniform2, policy_uniform2, policy_uniform2}};

/* Play to the end with `pol`; optionally record the plays in rec[0..MAX_STEPS).  Returns the
 * number of plays, or for a position no deal reaches FP2_NO_PLAY (a player has no legal play),
 * FP2_TOO_MANY_PLAYS or FP2_TOO_LONG (more than MAX_STEPS plays). */
static int fp2_playout(Fp2Pos *p, const Fp2Policy *pol, FpRng *rng, Fp2Play *rec)
{
    Fp2Play legal[MAX_PLAYS];
    int steps = 0;
    while (!fp2_is_over(p)) {
        int n = fp2_legal(p, legal);
        if (n < 0)
            return n;
        if (n == 0)
            return FP2_NO_PLAY;
        if (steps >= MAX_STEPS)
            return FP2_TOO_LONG;
        int i = pol->seat[(int)p->turn](p, legal, n, rng);
        if (rec)
            rec[steps] = legal[i];
        steps++;
        fp2_apply(p, legal[i], legal, n);
    }
    return steps;
}

/* ------------------------------------------------------------------ Python interface */

/* Why the fields of p are not those of a position this module can play, or NULL: every seat,
 * suit, option and count in its range, the trick shaped as encode makes it and fp2_apply keeps
 * it, the copy masks nested.  (Whether a deal can reach p is gongzhu.search.fast2's check.) */
static const char *fp2_malformed(const Fp2Pos *p)
{
    if (p->magic != FP2_MAGIC)
        return "not a two-deck position";
    if (p->turn < 0 || p->turn > 3 || p->leader < 0 || p->leader > 3 || p->offender < -1 || p->offender > 3)
        return "a seat out of range";
    if ((p->step != 1 && p->step != 3) || p->discard_color > COLOR_PENALTY || p->edbsl > 1 || p->heart_book > 1 ||
        p->must_c2 > 1 || p->suits_led > 15)
        return "an option or the suits led out of range";
    for (int k = 0; k < 4; k++)
        if (p->exposed[k] > 2 || p->pad[k])
            return "exposed copies out of range";
    for (int s = 0; s < 4; s++) {
        uint64_t all = p->h1[s] | p->h2[s] | p->r1[s] | p->r2[s] | p->c1[s] | p->c2[s];
        if ((all & ~ALL_CARDS_MASK) || (p->h2[s] & ~p->h1[s]) || (p->r1[s] & ~p->h1[s]) || (p->r2[s] & ~p->r1[s]) ||
            (p->r2[s] & ~p->h2[s]) || (p->c2[s] & ~p->c1[s]))
            return "inconsistent copy masks";
    }
    if (p->n_trick < 0 || p->n_trick > 3)
        return "a trick in progress of more than three plays";
    for (int i = 0; i < 4; i++) {
        int a = p->trick[i][0], b = p->trick[i][1];
        if (i >= p->n_trick ? a != NONE || b != NONE : a >= 52 || (b != NONE && (b >= 52 || b < a)))
            return "a malformed trick";
        if (i > 0 && i < p->n_trick && (b != NONE) != (p->trick[0][1] != NONE))
            return "a malformed trick";
    }
    if (p->n_trick == 0 ? p->led != -1 || p->pair
                        : p->led != p->trick[0][0] / 13 || p->pair != (p->trick[0][1] != NONE) ||
                              (p->pair && p->trick[0][1] != p->trick[0][0]))
        return "a malformed trick";
    return NULL;
}

static int get_pos(PyObject *blob, Fp2Pos *p)
{
    if (!PyBytes_Check(blob) || PyBytes_GET_SIZE(blob) != (Py_ssize_t)sizeof(Fp2Pos)) {
        PyErr_SetString(PyExc_TypeError, "expected a two-deck position (bytes from _fastplay2.encode)");
        return -1;
    }
    memcpy(p, PyBytes_AS_STRING(blob), sizeof(Fp2Pos));
    const char *why = fp2_malformed(p);
    if (why) {
        PyErr_Format(PyExc_ValueError, "not a two-deck position the C fast path can play: %s", why);
        return -1;
    }
    return 0;
}

/* The ValueError of a position fp2_legal or fp2_playout could not go on from (code < 0). */
static void set_play_error(int code)
{
    if (code == FP2_TOO_MANY_PLAYS)
        PyErr_Format(PyExc_ValueError,
                     "impossible position: the player to move has more than %d legal plays (a two-deck hand "
                     "holds at most 26 cards)", MAX_PLAYS);
    else if (code == FP2_TOO_LONG)
        PyErr_Format(PyExc_ValueError,
                     "impossible position: the deal does not end within %d plays (a two-deck hand holds at "
                     "most 26 cards)", MAX_STEPS);
    else
        PyErr_SetString(PyExc_ValueError, "inconsistent position: a player has no legal play");
}

static PyObject *pos_to_bytes(const Fp2Pos *p) { return PyBytes_FromStringAndSize((const char *)p, sizeof(Fp2Pos)); }

static int get_mask4(PyObject *obj, uint64_t out[4], const char *what)
{
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 4) {
        PyErr_Format(PyExc_ValueError, "%s: expected 4 masks", what);
        Py_DECREF(seq);
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        out[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (PyErr_Occurred() || out[i] > ALL_CARDS_MASK) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "%s: not a 52-bit card mask", what);
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* A play as a tuple of one or two card indices; checked to be a shape of play. */
static int get_play(PyObject *obj, Fp2Play *q)
{
    PyObject *seq = PySequence_Fast(obj, "a play is a sequence of one or two card indices");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    long c[2] = {NONE, NONE};
    if (n < 1 || n > 2) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "a play is one or two cards");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        c[i] = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (PyErr_Occurred() || c[i] < 0 || c[i] >= 52) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "card index out of range");
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    if (n == 2 && c[1] < c[0]) {
        long t = c[0];
        c[0] = c[1];
        c[1] = t;
    }
    q->a = (uint8_t)c[0];
    q->b = (uint8_t)c[1];
    return 0;
}

static PyObject *play_tuple(Fp2Play q)
{
    if (q.b == NONE)
        return Py_BuildValue("(i)", q.a);
    return Py_BuildValue("(ii)", q.a, q.b);
}

static PyObject *scores_tuple(const int64_t v[4])
{
    return Py_BuildValue("(LLLL)", (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3]);
}

static int get_policy(PyObject *obj, Fp2Policy *pol)
{
    long ids[4];
    if (PyLong_Check(obj)) {
        long id = PyLong_AsLong(obj);
        if (id == -1 && PyErr_Occurred())
            return -1;
        ids[0] = ids[1] = ids[2] = ids[3] = id;
    } else {
        PyObject *seq = PySequence_Fast(obj, "policy: an id or four ids");
        if (!seq)
            return -1;
        if (PySequence_Fast_GET_SIZE(seq) != 4) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "policy: an id or four ids (one per seat)");
            return -1;
        }
        for (int i = 0; i < 4; i++) {
            ids[i] = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
            if (ids[i] == -1 && PyErr_Occurred()) {
                Py_DECREF(seq);
                return -1;
            }
        }
        Py_DECREF(seq);
    }
    for (int i = 0; i < 4; i++) {
        if (ids[i] < 0 || ids[i] >= FP2_N_POLICIES) {
            PyErr_Format(PyExc_ValueError, "unknown playout policy %ld", ids[i]);
            return -1;
        }
        pol->seat[i] = FP2_POLICIES[ids[i]];
    }
    return 0;
}

PyDoc_STRVAR(encode_doc,
             "encode(h1, h2, r1, r2, c1, c2, exposed, trick, leader, turn, offender, suits_led, must_c2,\n"
             "       clockwise, edbsl, discard_color, heart_book, /) -> bytes\n\n"
             "A two-deck position.  h1/h2, r1/r2, c1/c2: four masks each (held, bound exposed copies, point\n"
             "cards taken: at least one / two copies); exposed: copies exposed of QS JD TC AH; trick: the\n"
             "plays of the trick in progress, each a sequence of one or two card indices.");

static PyObject *py_encode(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *oh1, *oh2, *or1, *or2, *oc1, *oc2, *oexp, *otrick;
    int leader, turn, offender, suits_led, must_c2, cw, edbsl, color, book;
    if (!PyArg_ParseTuple(args, "OOOOOOOOiiiipppip", &oh1, &oh2, &or1, &or2, &oc1, &oc2, &oexp, &otrick,
                          &leader, &turn, &offender, &suits_led, &must_c2, &cw, &edbsl, &color, &book))
        return NULL;
    Fp2Pos p;
    memset(&p, 0, sizeof p);
    if (get_mask4(oh1, p.h1, "h1") || get_mask4(oh2, p.h2, "h2") || get_mask4(or1, p.r1, "r1") ||
        get_mask4(or2, p.r2, "r2") || get_mask4(oc1, p.c1, "c1") || get_mask4(oc2, p.c2, "c2"))
        return NULL;
    uint64_t e4[4];
    if (get_mask4(oexp, e4, "exposed"))
        return NULL;
    for (int i = 0; i < 4; i++) {
        if (e4[i] > 2) {
            PyErr_SetString(PyExc_ValueError, "exposed: 0, 1 or 2 copies per card");
            return NULL;
        }
        p.exposed[i] = (uint8_t)e4[i];
        if ((p.h2[i] & ~p.h1[i]) || (p.r1[i] & ~p.h1[i]) || (p.r2[i] & ~p.r1[i]) || (p.r2[i] & ~p.h2[i]) ||
            (p.c2[i] & ~p.c1[i])) {
            PyErr_SetString(PyExc_ValueError, "inconsistent copy masks (the 'twice' mask must be within the 'once' mask)");
            return NULL;
        }
    }
    if (leader < 0 || leader > 3 || turn < 0 || turn > 3 || offender < -1 || offender > 3 || suits_led < 0 ||
        suits_led > 15 || color < 0 || color > 2) {
        PyErr_SetString(PyExc_ValueError, "seat, suit set or option out of range");
        return NULL;
    }
    p.magic = FP2_MAGIC;
    memset(p.trick, NONE, sizeof p.trick);
    p.leader = (int8_t)leader;
    p.turn = (int8_t)turn;
    p.led = -1;
    p.offender = (int8_t)offender;
    p.suits_led = (uint8_t)suits_led;
    p.must_c2 = (uint8_t)must_c2;
    p.step = cw ? 1 : 3;
    p.edbsl = (uint8_t)edbsl;
    p.discard_color = (uint8_t)color;
    p.heart_book = (uint8_t)book;
    PyObject *seq = PySequence_Fast(otrick, "trick: a sequence of plays");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > 3) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "trick: at most 3 plays in progress");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Fp2Play q;
        if (get_play(PySequence_Fast_GET_ITEM(seq, i), &q)) {
            Py_DECREF(seq);
            return NULL;
        }
        p.trick[i][0] = q.a;
        p.trick[i][1] = q.b;
    }
    Py_DECREF(seq);
    p.n_trick = (int8_t)n;
    if (n) {
        p.led = (int8_t)(p.trick[0][0] / 13);
        p.pair = p.trick[0][1] != NONE;
        if ((p.trick[0][1] != NONE && p.trick[0][1] != p.trick[0][0])) {
            PyErr_SetString(PyExc_ValueError, "trick: a lead is one card or a pair");
            return NULL;
        }
        for (Py_ssize_t i = 1; i < n; i++)
            if ((p.trick[i][1] != NONE) != p.pair) {
                PyErr_SetString(PyExc_ValueError, "trick: every answer has as many cards as the lead");
                return NULL;
            }
    }
    const char *why = fp2_malformed(&p);
    if (why) { /* never: the checks above cover it */
        PyErr_Format(PyExc_ValueError, "encode: %s", why);
        return NULL;
    }
    return pos_to_bytes(&p);
}

static PyObject *py_legal_plays(PyObject *self, PyObject *arg)
{
    (void)self;
    Fp2Pos p;
    if (get_pos(arg, &p))
        return NULL;
    if (fp2_is_over(&p))
        return PyTuple_New(0);
    Fp2Play legal[MAX_PLAYS];
    int n = fp2_legal(&p, legal);
    if (n < 0) {
        set_play_error(n);
        return NULL;
    }
    PyObject *out = PyTuple_New(n);
    if (!out)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *t = play_tuple(legal[i]);
        if (!t) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, t);
    }
    return out;
}

static PyObject *py_play(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *blob, *oplay;
    if (!PyArg_ParseTuple(args, "OO", &blob, &oplay))
        return NULL;
    Fp2Pos p;
    Fp2Play q;
    if (get_pos(blob, &p) || get_play(oplay, &q))
        return NULL;
    Fp2Play legal[MAX_PLAYS];
    int n = fp2_is_over(&p) ? 0 : fp2_legal(&p, legal);
    if (n < 0) {
        set_play_error(n);
        return NULL;
    }
    if (find_play(legal, n, q.a, q.b) < 0) {
        PyErr_SetString(PyExc_ValueError, "not a legal play in this position");
        return NULL;
    }
    fp2_apply(&p, q, legal, n);
    return pos_to_bytes(&p);
}

static PyObject *py_raw_scores(PyObject *self, PyObject *arg)
{
    (void)self;
    Fp2Pos p;
    if (get_pos(arg, &p))
        return NULL;
    int64_t v[4];
    fp2_raw_scores(&p, v);
    return scores_tuple(v);
}

PyDoc_STRVAR(playout_sums_doc,
             "playout_sums(pos, n, seed, policy=0, /) -> (N, E, S, W)\n\n"
             "Sums of the raw scores of n playouts to the end of the deal (playout i uses stream (seed, i)).");

static PyObject *py_playout_sums(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *blob, *opol = NULL;
    Py_ssize_t n;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OnK|O", &blob, &n, &seed, &opol))
        return NULL;
    Fp2Pos start;
    Fp2Policy pol;
    if (get_pos(blob, &start))
        return NULL;
    if (opol && get_policy(opol, &pol))
        return NULL;
    if (!opol)
        pol = UNIFORM_EVERYWHERE;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "n must be >= 0");
        return NULL;
    }
    int64_t sums[4] = {0, 0, 0, 0}, v[4];
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n && !bad; i++) {
        Fp2Pos p = start;
        FpRng rng;
        rng_seed(&rng, seed, (uint64_t)i);
        int steps = fp2_playout(&p, &pol, &rng, NULL);
        if (steps < 0) {
            bad = steps;
            break;
        }
        fp2_raw_scores(&p, v);
        for (int s = 0; s < 4; s++)
            sums[s] += v[s];
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        set_play_error(bad);
        return NULL;
    }
    return scores_tuple(sums);
}

PyDoc_STRVAR(playout_trace_doc,
             "playout_trace(pos, seed, policy=0, /) -> (plays, raw scores)\n\n"
             "The playout of stream (seed, 0): every play to the end, and the raw scores.");

static PyObject *py_playout_trace(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *blob, *opol = NULL;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OK|O", &blob, &seed, &opol))
        return NULL;
    Fp2Pos p;
    Fp2Policy pol;
    if (get_pos(blob, &p))
        return NULL;
    if (opol && get_policy(opol, &pol))
        return NULL;
    if (!opol)
        pol = UNIFORM_EVERYWHERE;
    FpRng rng;
    rng_seed(&rng, seed, 0);
    Fp2Play rec[MAX_STEPS];
    int n = fp2_playout(&p, &pol, &rng, rec);
    if (n < 0) {
        set_play_error(n);
        return NULL;
    }
    PyObject *plays = PyTuple_New(n);
    if (!plays)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *t = play_tuple(rec[i]);
        if (!t) {
            Py_DECREF(plays);
            return NULL;
        }
        PyTuple_SET_ITEM(plays, i, t);
    }
    int64_t v[4];
    fp2_raw_scores(&p, v);
    PyObject *scores = scores_tuple(v);
    if (!scores) {
        Py_DECREF(plays);
        return NULL;
    }
    return Py_BuildValue("(NN)", plays, scores);
}

static PyObject *py_turn(PyObject *self, PyObject *arg)
{
    (void)self;
    Fp2Pos p;
    if (get_pos(arg, &p))
        return NULL;
    return Py_BuildValue("(ii)", (int)p.turn, fp2_is_over(&p));
}

static PyMethodDef methods[] = {
    {"encode", py_encode, METH_VARARGS, encode_doc},
    {"legal_plays", py_legal_plays, METH_O, "legal_plays(pos, /) -> the legal plays (tuples of card indices)"},
    {"play", py_play, METH_VARARGS, "play(pos, play, /) -> the position after the legal play"},
    {"raw_scores", py_raw_scores, METH_O, "raw_scores(pos, /) -> R6.2 raw scores of the cards taken so far"},
    {"turn", py_turn, METH_O, "turn(pos, /) -> (seat to move, whether the deal is over)"},
    {"playout_sums", py_playout_sums, METH_VARARGS, playout_sums_doc},
    {"playout_trace", py_playout_trace, METH_VARARGS, playout_trace_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastplay2", "The C fast path for two-deck deals (see _fastplay2.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastplay2(void)
{
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    if (PyModule_AddIntConstant(m, "POLICY_UNIFORM", 0) || PyModule_AddIntConstant(m, "POLICY_HEURISTIC", 1) ||
        PyModule_AddIntConstant(m, "N_POLICIES", FP2_N_POLICIES) ||
        PyModule_AddIntConstant(m, "POSITION_SIZE", (long)sizeof(Fp2Pos))) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
