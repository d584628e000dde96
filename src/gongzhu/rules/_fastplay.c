/*
 * gongzhu.rules._fastplay: the C fast path for ONE-DECK deals (search and benchmarks).
 *
 * A position (FpPos) is a small plain struct: four hands as 52-bit masks, the exposed cards
 * still bound by the play restriction of R4.3, the point cards each seat has taken, the trick in
 * progress and every one-deck option that changes play or scoring.  Python sees it as an opaque
 * bytes blob (see gongzhu/search/fast.py, which builds it from a Deal).
 *
 * Card index = suit * 13 + (rank - 2), suits S H C D = 0 1 2 3 (cards.py, R1).
 * Legal moves are a transcription of rules/legal.py's cascade for one deck (R5.2 -> R4.3 ->
 * discard colour, each only if it leaves a card); scoring is a transcription of
 * scoring.raw_scores for one deck (R6, R6.1, R4.2, R10 exposure factors).
 *
 * Fixed-size arrays: every position read from Python passes get_pos (the Board: Board_new's
 * checks), so no hand holds more than 13 cards and a deal has at most 52 plays; the writes into
 * the arrays sized by those bounds (playout records, the Board's undo stack, the solver's moves)
 * still check them, and stop or fail rather than write past the end.
 *
 * Playouts take a policy (fp_policy_fn, listed in FP_POLICIES): 0 plays uniformly random legal
 * cards, 1 is a cheap heuristic player (policy_heuristic) for the expert AI's simulated
 * continuations.  The Python functions take one policy id, or four (one per seat, N E S W).
 *
 * Two headers add types: _fastsolve.h the exact open-card solver (Solver), _fastenv.h the batched
 * environment (Batch: N deals stepped together, observations written into numpy arrays).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "_fastcommon.h"

/* ------------------------------------------------------------------ the position */

#define FP_MAGIC 0x31445A47u /* "GZD1" */

typedef struct {
    /* --- state --- */
    uint64_t hand[4];     /* cards held */
    uint64_t restr[4];    /* exposed cards in hand still bound by R4.3 (kinds shown/auto) */
    uint64_t captured[4]; /* point cards taken (R6) */
    /* --- per-deal constants --- */
    int32_t factor[4];    /* exposure value factor of QS JD TC AH, 1 when not exposed (R10) */
    uint32_t magic;
    /* --- state --- */
    uint8_t trick_card[4]; /* plays of the trick in progress, in playing order */
    int8_t n_trick;        /* cards in the trick in progress, 0..3 */
    int8_t leader;         /* leader of the trick in progress (or next leader) */
    int8_t turn;           /* who plays next */
    int8_t led;            /* suit led in the trick in progress, -1 when none */
    int8_t offender;       /* R5.2 penalty: first offender of this trick, -1 when none */
    uint8_t suits_led;     /* bit per suit led in a finished trick */
    uint8_t must_c2;       /* R5.1 club2_must: the next lead must be the ♣2 */
    /* --- one-deck options and per-deal constants --- */
    uint8_t step;          /* next seat = (seat + step) % 4: 1 clockwise, 3 counter-clockwise (R1) */
    uint8_t edbsl;         /* exposed_discard_before_suit_led (R4.3 tournament rule) */
    uint8_t discard_color; /* COLOR_OFF / COLOR_ENFORCE / COLOR_PENALTY (R5.2) */
    uint8_t heart_book;    /* heart_values=book (R2) */
    uint8_t self_catch;    /* R6.1 */
    int8_t dealt_to[4];    /* who was dealt QS JD TC AH (for self-catch) */
} FpPos;

/* No padding: a blob's bytes are all meaningful, so equal positions give equal bytes. */
_Static_assert(sizeof(FpPos) == 136, "FpPos has no padding");

/* ------------------------------------------------------------------ rules */

/* Cards of the suits not yet led in a finished trick (Deal._unled_cards). */
static inline uint64_t unled_cards(unsigned suits_led)
{
    uint64_t m = 0;
    for (int u = 0; u < 4; u++)
        if (!(suits_led >> u & 1))
            m |= SUIT_MASK(u);
    return m;
}

/* R5.2 then R4.3 then discard colour, each only if it leaves a card (legal.cascade). */
static inline uint64_t fp_legal(const FpPos *p)
{
    int s = p->turn;
    uint64_t hand = p->hand[s];
    uint64_t restricted = p->restr[s];
    uint64_t cand, x;
    if (p->n_trick == 0) {
        if (p->must_c2) /* R5.1 club2_must */
            return hand & (1ULL << CARD_C2);
        uint64_t unled = unled_cards(p->suits_led);
        cand = hand;
        x = cand & ~(restricted & unled); /* R4.3: not in the first trick of its suit */
        return x ? x : cand;
    }
    int led = p->led;
    cand = hand & SUIT_MASK(led); /* R5.2 follow suit */
    if (cand) {
        if (!(p->suits_led >> led & 1)) {
            x = cand & ~restricted; /* R4.3 */
            if (x)
                cand = x;
        }
        return cand;
    }
    cand = hand; /* 断门: a discard */
    if (p->edbsl) { /* R4.3 tournament rule: no exposed discard before its suit was led */
        uint64_t unled = unled_cards(p->suits_led);
        x = cand & ~(restricted & unled);
        if (x)
            cand = x;
    }
    if (p->discard_color == COLOR_ENFORCE) { /* R5.2 discard_color=enforce */
        x = cand & COLOR_OF_SUIT[led];
        if (x)
            cand = x;
    }
    return cand;
}

static inline int fp_is_over(const FpPos *p) { return p->n_trick == 0 && p->hand[p->turn] == 0; }

/* A finished trick, as the Board type records it (history). */
typedef struct {
    uint8_t card[4]; /* in playing order; seat of card i = (leader + i * step) % 4 */
    int8_t leader;
    int8_t winner;
    int8_t taker; /* who took the point cards: the R5.2 penalty offender, else the winner */
    uint8_t pad;
} FpTrick;

/* Play card c (which must be in `legal`, the legal set of the position) for the player to move.
 * Returns 1 if the card finished a trick (then written to *done when done is not NULL), else 0. */
static inline int fp_apply_rec(FpPos *p, int c, uint64_t legal, FpTrick *done)
{
    int s = p->turn;
    uint64_t bit = 1ULL << c;
    if (p->n_trick == 0) {
        p->led = (int8_t)(c / 13);
        p->leader = (int8_t)s;
        p->must_c2 = 0;
    } else if (p->discard_color == COLOR_PENALTY && p->offender < 0 && c / 13 != p->led) {
        /* R5.2 penalty: a discard not of the led colour while the legal set held one. */
        uint64_t colour = COLOR_OF_SUIT[(int)p->led];
        if ((legal & colour) && !(bit & colour))
            p->offender = (int8_t)s;
    }
    p->hand[s] &= ~bit;
    p->restr[s] &= ~bit;
    p->trick_card[(int)p->n_trick] = (uint8_t)c;
    p->n_trick++;
    if (p->n_trick < 4) {
        p->turn = (int8_t)((s + p->step) & 3);
        return 0;
    }
    /* The trick is complete: the highest card of the led suit wins (R5.2). */
    int led = p->led;
    int best_i = 0, best_c = p->trick_card[0];
    uint64_t points = 0;
    for (int i = 0; i < 4; i++) {
        int ci = p->trick_card[i];
        points |= 1ULL << ci;
        if (ci / 13 == led && ci > best_c) {
            best_c = ci;
            best_i = i;
        }
    }
    int winner = (p->leader + best_i * p->step) & 3;
    int taker = p->offender >= 0 ? p->offender : winner;
    if (done) {
        memcpy(done->card, p->trick_card, sizeof done->card);
        done->leader = p->leader;
        done->winner = (int8_t)winner;
        done->taker = (int8_t)taker;
        done->pad = 0;
    }
    p->captured[taker] |= points & POINT_MASK;
    p->suits_led |= (uint8_t)(1u << led);
    memset(p->trick_card, 0, sizeof p->trick_card); /* equal positions, equal bytes */
    p->n_trick = 0;
    p->led = -1;
    p->offender = -1;
    p->leader = p->turn = (int8_t)winner;
    return 1;
}

static inline void fp_apply(FpPos *p, int c, uint64_t legal) { (void)fp_apply_rec(p, c, legal, NULL); }

/* R6 (one deck) with R6.1 self-catch, R2 heart tables and R10 exposure factors: the raw score of
 * seat s had it taken the point cards `cap`; a transcription of scoring.raw_scores for decks=1. */
static int64_t fp_seat_score(const FpPos *p, int s, uint64_t cap)
{
    const int *hv = p->heart_book ? HEART_BOOK : HEART_STANDARD;
    int64_t fqs = p->factor[SP_QS], fjd = p->factor[SP_JD];
    int64_t ftc = p->factor[SP_TC], fah = p->factor[SP_AH];
    int caught[4];
    for (int k = 0; k < 4; k++)
        caught[k] = p->self_catch && p->dealt_to[k] == s && (cap >> SPECIAL_CARD[k] & 1);
    uint32_t hearts = (uint32_t)((cap >> 13) & SUIT_BITS);
    int hsum = 0;
    for (uint32_t m = hearts; m; m &= m - 1)
        hsum += hv[__builtin_ctz(m)];
    int64_t h = fah * hsum;
    if (caught[SP_AH]) /* R6.1 [interpretation]: doubles ♥A's own value only */
        h += fah * hv[12];
    int took_qs = (int)(cap >> CARD_QS & 1), took_jd = (int)(cap >> CARD_JD & 1);
    int took_tc = (int)(cap >> CARD_TC & 1);
    int64_t pig = took_qs ? -100 * fqs * (caught[SP_QS] ? 2 : 1) : 0;
    int64_t sheep = took_jd ? 100 * fjd * (caught[SP_JD] ? 2 : 1) : 0;
    int all_hearts = hearts == SUIT_BITS;
    if (all_hearts) /* 满红 (R6 step 4) */
        h = -h;
    if (all_hearts && took_qs && took_jd && took_tc) /* 满贯 (R6 step 5) */
        pig = -pig;
    if (!took_tc)
        return h + pig + sheep;
    int64_t tc_self = caught[SP_TC] ? 2 : 1;
    if (!hearts && !took_qs && !took_jd) /* transformer alone (R6 step 7) */
        return 50 * ftc * tc_self;
    return (h + pig + sheep) * 2 * ftc * tc_self;
}

/* R6 raw scores of the cards each seat has taken so far. */
static void fp_raw_scores(const FpPos *p, int64_t out[4])
{
    for (int s = 0; s < 4; s++)
        out[s] = fp_seat_score(p, s, p->captured[s]);
}

/* ------------------------------------------------------------------ playout policies */

/* A playout policy picks one card of `legal` (non-empty) for the player to move in `p`. */
typedef int (*fp_policy_fn)(const FpPos *p, uint64_t legal, FpRng *rng, void *ctx);

/* Uniform over the legal cards (policy 0). */
static int policy_uniform(const FpPos *p, uint64_t legal, FpRng *rng, void *ctx)
{
    (void)p;
    (void)ctx;
    return kth_bit(legal, rng_bounded(rng, (uint32_t)__builtin_popcountll(legal)));
}

/*
 * Policy 1: a cheap heuristic player for Monte-Carlo continuations (docs/rules.md R12, the "拱猪技巧"
 * of the sources).  It looks only at what the mover may know: its own hand, the trick, the cards
 * still out (all cards not in its hand and not yet played, without who holds them), the point
 * cards taken and the exposures (factors).  About 1 choice in 10 (of those with two or more
 * legal cards) is uniformly random, so continuations differ; lead choices break ties at random.
 *
 * - Following suit (自然跟牌法): duck with the highest card under the trick's winning card,
 *   which dumps ♠Q under a played ♠A/♠K and high hearts under a higher heart; keep the ♦J.
 *   Last to play: win a trick worth >= 0 to the mover (its own card included) with the highest
 *   card that carries no points (the lowest in diamonds while the ♦J is out: keep the 羊圈);
 *   second/third: win a trick that is already worth > 0 (the sheep) with the highest card;
 *   forced over the winner: the lowest card without points.  Play the ♦J when it wins (no
 *   higher diamond out) and the trick is worth > 0 with it (自得).  Taking the ♣10 counts
 *   HEUR_TC_RISK points worse than its value now: it doubles what is still to come.
 * - Discarding (垫牌): ♠Q, then ♥A K Q J, then ♠A/♠K while ♠Q is out, then hearts 10..5, then
 *   the ♣10 unless the trick's taker would gain from it (counting HEUR_TC_RISK), else the
 *   highest card of the shortest suit; never the ♦J while another card will do; under
 *   discard_color=penalty a card of the led colour when it has one (else it takes the trick).
 * - Leading: never ♠Q, ♠A/♠K while ♠Q is out, ♦J under a higher diamond still out, ♣10 under a
 *   higher club still out (while another card will do).  The ♦J when no higher diamond is out;
 *   the top diamond while the ♦J is out (牵羊).  Else the lowest card of the suit that scores
 *   best: few cards still out under it (others must win the trick), a short suit (断门), spades
 *   to flush the pig when the mover holds none of ♠Q ♠K ♠A (拱猪), no spades when it holds
 *   ♠Q, hearts late, no suit the others are void in.
 */


/* What taking `cards` now is worth to seat s: the change in its raw score, less HEUR_TC_RISK
 * with the ♣10 (0 without point cards). */
static inline int64_t take_delta(const FpPos *p, int s, uint64_t cards)
{
    cards &= POINT_MASK & ~p->captured[s];
    if (!cards)
        return 0;
    int64_t d = fp_seat_score(p, s, p->captured[s] | cards) - fp_seat_score(p, s, p->captured[s]);
    return (cards & BIT(CARD_TC)) ? d - HEUR_TC_RISK : d;
}

/* The trick in progress: its cards (mask) and the playing index of its winning card. */
static inline uint64_t trick_cards(const FpPos *p, int *win_i)
{
    uint64_t t = 0;
    int best = -1;
    for (int i = 0; i < p->n_trick; i++) {
        int c = p->trick_card[i];
        t |= BIT(c);
        if (c / 13 == p->led && c > best) {
            best = c;
            *win_i = i;
        }
    }
    return t;
}

static int heur_follow(const FpPos *p, uint64_t legal, uint64_t out)
{
    int s = p->turn, wi = 0;
    uint64_t trick = trick_cards(p, &wi);
    int win = p->trick_card[wi];
    uint64_t under = legal & (BIT(win) - 1), over = legal & ~under; /* legal: the led suit */
    if ((over & BIT(CARD_JD)) && !(out & DIAMONDS_OVER_J) &&
        take_delta(p, s, trick | BIT(CARD_JD)) > 0)
        return CARD_JD; /* the sheep wins this trick: take it back (自得) */
    uint64_t keep = under & ~BIT(CARD_JD); /* do not hand over the sheep */
    if (keep)
        under = keep;
    if (p->n_trick == 3) { /* last to play */
        if (over) {
            uint64_t clean = over & ~POINT_MASK;
            int c = clean ? hi_card(clean) : lo_card(over);
            if (clean && p->led == 3 && (out & BIT(CARD_JD)))
                c = lo_card(clean); /* keep the sheep catchers while the sheep is out */
            if (!under || take_delta(p, s, trick | BIT(c)) >= 0)
                return c;
        }
        return hi_card(under);
    }
    if (!under) { /* it must go over the winner: as low as it can, without points */
        uint64_t clean = over & ~POINT_MASK;
        return lo_card(clean ? clean : over);
    }
    if (over && (trick & POINT_MASK) && take_delta(p, s, trick | BIT(hi_card(over))) > 0)
        return hi_card(over); /* the sheep is in it: take it */
    return hi_card(under);
}

static void suit_lengths(uint64_t hand, int lens[4])
{
    for (int u = 0; u < 4; u++)
        lens[u] = __builtin_popcountll(hand & SUIT_MASK(u));
}

static int heur_discard(const FpPos *p, uint64_t legal, uint64_t out)
{
    uint64_t cand = legal, x;
    if (p->discard_color == COLOR_PENALTY && p->offender < 0) {
        x = legal & COLOR_OF_SUIT[(int)p->led]; /* the offender would take the points */
        if (x)
            cand = x;
    }
    int c = heur_discard_first(cand, out);
    if (c >= 0)
        return c;
    if (cand & BIT(CARD_TC)) {
        int wi = 0;
        uint64_t trick = trick_cards(p, &wi);
        int taker = p->offender >= 0 ? p->offender : (p->leader + wi * p->step) & 3;
        if (take_delta(p, taker, trick | BIT(CARD_TC)) < 0)
            return CARD_TC;
    }
    int lens[4];
    suit_lengths(p->hand[(int)p->turn], lens);
    return heur_discard_rest(cand, lens);
}

static int heur_lead(const FpPos *p, uint64_t legal, uint64_t out, uint64_t rbits)
{
    int lens[4];
    suit_lengths(p->hand[(int)p->turn], lens);
    return heur_lead_core(legal, out, p->hand[(int)p->turn], lens, rbits);
}

static int policy_heuristic(const FpPos *p, uint64_t legal, FpRng *rng, void *ctx)
{
    (void)ctx;
    if (!(legal & (legal - 1)))
        return lo_card(legal);
    uint64_t r = rng_next(rng);
    if ((r & 255) < HEUR_RANDOM_PER_256)
        return kth_bit(legal, rng_bounded(rng, (uint32_t)__builtin_popcountll(legal)));
    int s = p->turn;
    uint64_t out = (p->hand[0] | p->hand[1] | p->hand[2] | p->hand[3]) & ~p->hand[s];
    int c;
    if (p->n_trick == 0)
        c = heur_lead(p, legal, out, r >> 8);
    else if (legal & SUIT_MASK((int)p->led))
        c = heur_follow(p, legal, out);
    else
        c = heur_discard(p, legal, out);
    if (!(legal >> c & 1)) /* never happens; a safety net: the policy plays legal cards only */
        c = kth_bit(legal, rng_bounded(rng, (uint32_t)__builtin_popcountll(legal)));
    return c;
}

static const fp_policy_fn FP_POLICIES[] = {policy_uniform, policy_heuristic};
#define FP_N_POLICIES ((int)(sizeof(FP_POLICIES) / sizeof(FP_POLICIES[0])))

/* Per-seat policies: ctx is an array of four policies, indexed by the seat to move. */
static int policy_by_seat(const FpPos *p, uint64_t legal, FpRng *rng, void *ctx)
{
    const fp_policy_fn *seat = (const fp_policy_fn *)ctx;
    return seat[(int)p->turn](p, legal, rng, NULL);
}

/* A playout policy as the Python functions take it: one policy id, or one per seat. */
typedef struct {
    fp_policy_fn fn;      /* what fp_playout calls: the policy, or policy_by_seat */
    fp_policy_fn seat[4]; /* the policy of each seat (its ctx when fn is policy_by_seat) */
} FpPolicy;

/* Play to the end of the deal with `policy`; optionally record the cards and the legal sets in
 * cards[0..FP_MAX_PLAYS) and legals[0..FP_MAX_PLAYS).  Returns the number of plays, or -1 if the
 * position is inconsistent (no legal card, or more plays than a deal has). */
#define FP_MAX_PLAYS 52 /* plays in a one-deck deal */

static int fp_playout(FpPos *p, fp_policy_fn policy, void *ctx, FpRng *rng, uint8_t *cards,
                      uint64_t *legals)
{
    int n = 0;
    while (!fp_is_over(p)) {
        uint64_t legal = fp_legal(p);
        if (!legal || n >= FP_MAX_PLAYS)
            return -1;
        int c = policy(p, legal, rng, ctx);
        if (cards)
            cards[n] = (uint8_t)c;
        if (legals)
            legals[n] = legal;
        n++;
        fp_apply(p, c, legal);
    }
    return n;
}

/* ------------------------------------------------------------------ fresh random deals */

typedef struct {
    FpPos base;            /* options and factors; hands etc. are filled per deal */
    int first_lead;        /* 0 club2_must, 1 club2_any, 2 spade3_any (R5.1) */
    int mandatory;         /* bit k: special k is always exposed as shown (all / all_but_sheep) */
    uint64_t opt_threshold; /* optional exposure of each special with probability thr / 2^53 */
    int32_t opt_factor;    /* value factor of an optional exposure (the option's usual kind) */
    int opt_restricted;    /* whether that kind is bound by R4.3 */
    int32_t shown_factor;  /* factor of kind shown / auto */
    int auto_fourth;       /* R4.4 逼明 applies */
    FpPolicy policy;
    uint64_t seed;
    Py_ssize_t start, stop;
    int64_t sums[4];
    int64_t deals;
    int error;
} FpDealJob;

static void deal_one(const FpDealJob *job, FpPos *p, FpRng *rng)
{
    uint8_t deck[52];
    *p = job->base;
    for (int i = 0; i < 52; i++)
        deck[i] = (uint8_t)i;
    for (int i = 51; i > 0; i--) { /* Fisher-Yates (R3) */
        int j = (int)rng_bounded(rng, (uint32_t)(i + 1));
        uint8_t t = deck[i];
        deck[i] = deck[j];
        deck[j] = t;
    }
    for (int s = 0; s < 4; s++) {
        uint64_t h = 0;
        for (int i = 13 * s; i < 13 * s + 13; i++)
            h |= 1ULL << deck[i];
        p->hand[s] = h;
        p->restr[s] = 0;
        p->captured[s] = 0;
    }
    for (int k = 0; k < 4; k++) {
        int c = SPECIAL_CARD[k];
        int holder = 0;
        while (!(p->hand[holder] >> c & 1))
            holder++;
        p->dealt_to[k] = (int8_t)holder;
        p->factor[k] = 1;
    }
    /* Exposures (R4): mandatory ones, then optional ones, then the automatic fourth. */
    int shown = 0;
    for (int k = 0; k < 4; k++) {
        int c = SPECIAL_CARD[k], holder = p->dealt_to[k];
        if (job->mandatory >> k & 1) {
            p->factor[k] = job->shown_factor;
            p->restr[holder] |= 1ULL << c;
            shown |= 1 << k;
        } else if (job->opt_threshold && (rng_next(rng) >> 11) < job->opt_threshold) {
            p->factor[k] = job->opt_factor;
            if (job->opt_restricted)
                p->restr[holder] |= 1ULL << c;
            shown |= 1 << k;
        }
    }
    if (job->auto_fourth && __builtin_popcount((unsigned)shown) == 3) {
        int k = __builtin_ctz((unsigned)(~shown & 15));
        p->factor[k] = job->shown_factor;
        p->restr[(int)p->dealt_to[k]] |= 1ULL << SPECIAL_CARD[k];
    }
    /* First deal of a match: the holder of ♣2 (or ♠3) leads (R5.1). */
    int target = job->first_lead == 2 ? CARD_S3 : CARD_C2;
    int leader = 0;
    while (!(p->hand[leader] >> target & 1))
        leader++;
    p->leader = p->turn = (int8_t)leader;
    p->must_c2 = job->first_lead == 0;
    p->n_trick = 0;
    p->led = -1;
    p->offender = -1;
    p->suits_led = 0;
}

static void *deal_worker(void *arg)
{
    FpDealJob *job = (FpDealJob *)arg;
    FpRng rng;
    FpPos p;
    int64_t raw[4];
    for (Py_ssize_t i = job->start; i < job->stop; i++) {
        rng_seed(&rng, job->seed, (uint64_t)i);
        deal_one(job, &p, &rng);
        if (fp_playout(&p, job->policy.fn, job->policy.seat, &rng, NULL, NULL) < 0) {
            job->error = 1;
            return NULL;
        }
        fp_raw_scores(&p, raw);
        for (int s = 0; s < 4; s++)
            job->sums[s] += raw[s];
        job->deals++;
    }
    return NULL;
}

/* ------------------------------------------------------------------ Python glue */

static int get_policy_id(PyObject *obj, fp_policy_fn *out)
{
    if (!PyLong_Check(obj) || PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "a playout policy is an int id or a tuple of four (one per seat), not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow;
    long id = PyLong_AsLongAndOverflow(obj, &overflow);
    if (id == -1 && PyErr_Occurred())
        return -1;
    if (overflow || id < 0 || id >= FP_N_POLICIES) {
        PyErr_Format(PyExc_ValueError,
                     "unknown playout policy %S: 0 (uniform) or 1 (heuristic)", obj);
        return -1;
    }
    *out = FP_POLICIES[id];
    return 0;
}

/* The policy argument: NULL (policy 0), an int id, or a tuple of four ids (N, E, S, W). */
static int get_policy(PyObject *obj, FpPolicy *pol)
{
    if (!obj) {
        pol->fn = FP_POLICIES[0];
    } else if (PyTuple_Check(obj)) {
        if (PyTuple_GET_SIZE(obj) != 4) {
            PyErr_SetString(PyExc_ValueError,
                            "per-seat playout policies: a tuple of four ids (N, E, S, W)");
            return -1;
        }
        for (int s = 0; s < 4; s++)
            if (get_policy_id(PyTuple_GET_ITEM(obj, s), &pol->seat[s]) < 0)
                return -1;
        int same = pol->seat[1] == pol->seat[0] && pol->seat[2] == pol->seat[0] &&
                   pol->seat[3] == pol->seat[0];
        pol->fn = same ? pol->seat[0] : policy_by_seat;
        return 0;
    } else if (get_policy_id(obj, &pol->fn) < 0) {
        return -1;
    }
    for (int s = 0; s < 4; s++)
        pol->seat[s] = pol->fn;
    return 0;
}

/* Read a position blob, checking that it is one (and consistent enough to play safely). */
static int get_pos(PyObject *blob, FpPos *p)
{
    char *buf;
    Py_ssize_t len;
    if (!PyBytes_Check(blob)) {
        PyErr_SetString(PyExc_TypeError, "a fast position is a bytes object made by encode()");
        return -1;
    }
    if (PyBytes_AsStringAndSize(blob, &buf, &len) < 0)
        return -1;
    if (len != (Py_ssize_t)sizeof(FpPos)) {
        PyErr_SetString(PyExc_ValueError, "not a fast position (wrong size)");
        return -1;
    }
    memcpy(p, buf, sizeof(FpPos));
    int ok = p->magic == FP_MAGIC && p->turn >= 0 && p->turn < 4 && p->leader >= 0 &&
             p->leader < 4 && p->n_trick >= 0 && p->n_trick < 4 && p->offender >= -1 &&
             p->offender < 4 && (p->step == 1 || p->step == 3) && p->discard_color <= 2 &&
             (p->n_trick == 0 || (p->led >= 0 && p->led < 4));
    uint64_t seen = 0;
    int total = 0;
    for (int s = 0; s < 4 && ok; s++) {
        ok = !(p->hand[s] & ~ALL_CARDS_MASK) && !(seen & p->hand[s]) && p->dealt_to[s] >= 0 &&
             p->dealt_to[s] < 4;
        seen |= p->hand[s];
        total += __builtin_popcountll(p->hand[s]);
    }
    for (int i = 0; i < p->n_trick && ok; i++)
        ok = p->trick_card[i] < 52 && !(seen >> p->trick_card[i] & 1);
    ok = ok && (total + p->n_trick) % 4 == 0 && p->turn == ((p->leader + p->n_trick * p->step) & 3);
    /* Every seat must hold the cards it still has to play. */
    for (int s = 0; s < 4 && ok; s++) {
        int played = 0; /* has s played to the trick in progress? */
        for (int i = 0; i < p->n_trick; i++)
            if (((p->leader + i * p->step) & 3) == s)
                played = 1;
        ok = __builtin_popcountll(p->hand[s]) == (total + p->n_trick) / 4 - played;
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "not a consistent fast position");
        return -1;
    }
    return 0;
}

static PyObject *pos_to_bytes(const FpPos *p)
{
    return PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)sizeof(FpPos));
}

static PyObject *scores_tuple(const int64_t v[4])
{
    return Py_BuildValue("(LLLL)", (long long)v[0], (long long)v[1], (long long)v[2],
                         (long long)v[3]);
}

static int get_mask4(PyObject *obj, uint64_t out[4], const char *what)
{
    if (!PyArg_ParseTuple(obj, "KKKK", &out[0], &out[1], &out[2], &out[3])) {
        PyErr_Format(PyExc_TypeError, "%s: expected a tuple of four masks", what);
        return -1;
    }
    for (int i = 0; i < 4; i++)
        if (out[i] & ~ALL_CARDS_MASK) {
            PyErr_Format(PyExc_ValueError, "%s: a card mask has 52 bits", what);
            return -1;
        }
    return 0;
}

PyDoc_STRVAR(encode_doc,
             "encode(hands, restricted, captured, factors, dealt_to, trick, leader, turn, led,\n"
             "       offender, suits_led, must_c2, clockwise, edbsl, discard_color, heart_book,\n"
             "       self_catch) -> bytes\n\n"
             "Build a one-deck position blob.  hands/restricted/captured: 4 card masks; factors:\n"
             "value factors of QS JD TC AH; dealt_to: seats dealt QS JD TC AH; trick: cards of the\n"
             "trick in progress in playing order; discard_color: 0 off, 1 enforce, 2 penalty.");

static PyObject *py_encode(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *hands, *restr, *captured, *factors, *dealt, *trick;
    int leader, turn, led, offender, suits_led, must_c2, clockwise, edbsl, dcolor, book, selfc;
    if (!PyArg_ParseTuple(args, "OOOOOOiiiiiippipp:encode", &hands, &restr, &captured, &factors,
                          &dealt, &trick, &leader, &turn, &led, &offender, &suits_led, &must_c2,
                          &clockwise, &edbsl, &dcolor, &book, &selfc))
        return NULL;
    FpPos p;
    memset(&p, 0, sizeof p);
    p.magic = FP_MAGIC;
    if (get_mask4(hands, p.hand, "hands") < 0 || get_mask4(restr, p.restr, "restricted") < 0 ||
        get_mask4(captured, p.captured, "captured") < 0)
        return NULL;
    int f[4], d[4];
    if (!PyArg_ParseTuple(factors, "iiii", &f[0], &f[1], &f[2], &f[3]) ||
        !PyArg_ParseTuple(dealt, "iiii", &d[0], &d[1], &d[2], &d[3]))
        return NULL;
    for (int k = 0; k < 4; k++) {
        if (f[k] < 1 || f[k] > 64 || d[k] < 0 || d[k] > 3) {
            PyErr_SetString(PyExc_ValueError, "bad exposure factor or dealt_to seat");
            return NULL;
        }
        p.factor[k] = f[k];
        p.dealt_to[k] = (int8_t)d[k];
    }
    PyObject *seq = PySequence_Fast(trick, "trick: expected a sequence of card indices");
    if (!seq)
        return NULL;
    Py_ssize_t nt = PySequence_Fast_GET_SIZE(seq);
    if (nt > 3) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "trick: at most three cards in a trick in progress");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nt; i++) {
        long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (c == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        if (c < 0 || c > 51) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "trick: card indices are 0..51");
            return NULL;
        }
        p.trick_card[i] = (uint8_t)c;
    }
    Py_DECREF(seq);
    if (leader < 0 || leader > 3 || turn < 0 || turn > 3 || led < -1 || led > 3 ||
        offender < -1 || offender > 3 || suits_led < 0 || suits_led > 15 || dcolor < 0 ||
        dcolor > 2) {
        PyErr_SetString(PyExc_ValueError, "seat, suit or option out of range");
        return NULL;
    }
    p.n_trick = (int8_t)nt;
    p.leader = (int8_t)leader;
    p.turn = (int8_t)turn;
    p.led = (int8_t)(nt ? led : -1);
    p.offender = (int8_t)offender;
    p.suits_led = (uint8_t)suits_led;
    p.must_c2 = (uint8_t)(must_c2 && nt == 0);
    p.step = clockwise ? 1 : 3;
    p.edbsl = (uint8_t)edbsl;
    p.discard_color = (uint8_t)dcolor;
    p.heart_book = (uint8_t)book;
    p.self_catch = (uint8_t)selfc;
    PyObject *blob = pos_to_bytes(&p);
    if (!blob)
        return NULL;
    FpPos check;
    if (get_pos(blob, &check) < 0) {
        Py_DECREF(blob);
        return NULL;
    }
    return blob;
}

PyDoc_STRVAR(state_doc,
             "state(pos) -> (hands, restricted, captured, trick, leader, turn, led, offender,\n"
             "               suits_led, must_c2, over, factors, dealt_to)");

static PyObject *py_state(PyObject *self, PyObject *arg)
{
    (void)self;
    FpPos p;
    if (get_pos(arg, &p) < 0)
        return NULL;
    PyObject *trick = PyTuple_New(p.n_trick);
    if (!trick)
        return NULL;
    for (int i = 0; i < p.n_trick; i++) {
        PyObject *c = PyLong_FromLong(p.trick_card[i]);
        if (!c) {
            Py_DECREF(trick);
            return NULL;
        }
        PyTuple_SET_ITEM(trick, i, c);
    }
    return Py_BuildValue(
        "((KKKK)(KKKK)(KKKK)Niiiiiii(iiii)(iiii))", (unsigned long long)p.hand[0],
        (unsigned long long)p.hand[1], (unsigned long long)p.hand[2],
        (unsigned long long)p.hand[3], (unsigned long long)p.restr[0],
        (unsigned long long)p.restr[1], (unsigned long long)p.restr[2],
        (unsigned long long)p.restr[3], (unsigned long long)p.captured[0],
        (unsigned long long)p.captured[1], (unsigned long long)p.captured[2],
        (unsigned long long)p.captured[3], trick, (int)p.leader, (int)p.turn, (int)p.led,
        (int)p.offender, (int)p.suits_led, (int)p.must_c2, fp_is_over(&p), (int)p.factor[0],
        (int)p.factor[1], (int)p.factor[2], (int)p.factor[3], (int)p.dealt_to[0],
        (int)p.dealt_to[1], (int)p.dealt_to[2], (int)p.dealt_to[3]);
}

static PyObject *py_legal_mask(PyObject *self, PyObject *arg)
{
    (void)self;
    FpPos p;
    if (get_pos(arg, &p) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(fp_is_over(&p) ? 0 : fp_legal(&p));
}

static PyObject *py_play(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *blob;
    int c;
    if (!PyArg_ParseTuple(args, "Oi:play", &blob, &c))
        return NULL;
    FpPos p;
    if (get_pos(blob, &p) < 0)
        return NULL;
    if (fp_is_over(&p)) {
        PyErr_SetString(PyExc_ValueError, "the deal is over: no more cards can be played");
        return NULL;
    }
    uint64_t legal = fp_legal(&p);
    if (c < 0 || c > 51 || !(legal >> c & 1)) {
        PyErr_Format(PyExc_ValueError, "card %d is not a legal play now", c);
        return NULL;
    }
    fp_apply(&p, c, legal);
    return pos_to_bytes(&p);
}

static PyObject *py_raw_scores(PyObject *self, PyObject *arg)
{
    (void)self;
    FpPos p;
    if (get_pos(arg, &p) < 0)
        return NULL;
    int64_t raw[4];
    fp_raw_scores(&p, raw);
    return scores_tuple(raw);
}

PyDoc_STRVAR(playout_sums_doc,
             "playout_sums(pos, n, seed, policy=0) -> (sum_N, sum_E, sum_S, sum_W)\n\n"
             "Raw scores (R6) summed over n playouts; playout i uses the stream (seed, i).\n"
             "policy: a policy id (0 uniform, 1 heuristic) or a tuple of four, one per seat.");

static PyObject *py_playout_sums(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *blob;
    Py_ssize_t n;
    unsigned long long seed;
    PyObject *policy_obj = NULL;
    if (!PyArg_ParseTuple(args, "OnK|O:playout_sums", &blob, &n, &seed, &policy_obj))
        return NULL;
    FpPos start;
    if (get_pos(blob, &start) < 0)
        return NULL;
    FpPolicy policy;
    if (get_policy(policy_obj, &policy) < 0)
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "n must be >= 0");
        return NULL;
    }
    int64_t sums[4] = {0, 0, 0, 0}, raw[4];
    int error = 0;
    Py_BEGIN_ALLOW_THREADS
    FpRng rng;
    FpPos p;
    for (Py_ssize_t i = 0; i < n; i++) {
        p = start;
        rng_seed(&rng, seed, (uint64_t)i);
        if (fp_playout(&p, policy.fn, policy.seat, &rng, NULL, NULL) < 0) {
            error = 1;
            break;
        }
        fp_raw_scores(&p, raw);
        for (int s = 0; s < 4; s++)
            sums[s] += raw[s];
    }
    Py_END_ALLOW_THREADS
    if (error) {
        PyErr_SetString(PyExc_ValueError, "inconsistent position: a player has no legal card");
        return NULL;
    }
    return scores_tuple(sums);
}

/* The result of a traced playout that ended in position p: (cards, legal_masks, raw). */
static PyObject *trace_result(const FpPos *p, int n, const uint8_t *cards, const uint64_t *legals)
{
    int64_t raw[4];
    fp_raw_scores(p, raw);
    PyObject *ct = PyTuple_New(n), *lt = PyTuple_New(n);
    if (!ct || !lt)
        goto fail;
    for (int i = 0; i < n; i++) {
        PyObject *c = PyLong_FromLong(cards[i]);
        if (!c)
            goto fail;
        PyTuple_SET_ITEM(ct, i, c);
        PyObject *l = PyLong_FromUnsignedLongLong(legals[i]);
        if (!l)
            goto fail;
        PyTuple_SET_ITEM(lt, i, l);
    }
    return Py_BuildValue("(NN(LLLL))", ct, lt, (long long)raw[0], (long long)raw[1],
                         (long long)raw[2], (long long)raw[3]);
fail:
    Py_XDECREF(ct);
    Py_XDECREF(lt);
    return NULL;
}

PyDoc_STRVAR(playout_trace_doc,
             "playout_trace(pos, seed, policy=0) -> (cards, legal_masks, raw)\n\n"
             "One playout with the stream (seed, 0): the cards played in order, the legal set\n"
             "before each play, and the raw scores (R6) at the end.");

static PyObject *py_playout_trace(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *blob;
    unsigned long long seed;
    PyObject *policy_obj = NULL;
    if (!PyArg_ParseTuple(args, "OK|O:playout_trace", &blob, &seed, &policy_obj))
        return NULL;
    FpPos p;
    if (get_pos(blob, &p) < 0)
        return NULL;
    FpPolicy policy;
    if (get_policy(policy_obj, &policy) < 0)
        return NULL;
    FpRng rng;
    uint8_t cards[FP_MAX_PLAYS];
    uint64_t legals[FP_MAX_PLAYS];
    rng_seed(&rng, seed, 0);
    int n = fp_playout(&p, policy.fn, policy.seat, &rng, cards, legals);
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "inconsistent position: a player has no legal card");
        return NULL;
    }
    return trace_result(&p, n, cards, legals);
}

/* Read the deal parameters tuple shared by random_deals and random_deal_trace:
 * (clockwise, edbsl, discard_color, heart_book, self_catch, first_lead, mandatory, opt_prob,
 *  opt_factor, opt_restricted, shown_factor, auto_fourth). */
static int get_deal_job(PyObject *params, unsigned long long seed, PyObject *policy_obj,
                        FpDealJob *job)
{
    int clockwise, edbsl, dcolor, book, selfc, first_lead, mandatory, opt_factor;
    int opt_restricted, shown_factor, auto_fourth;
    double opt_prob;
    if (!PyTuple_Check(params)) {
        PyErr_SetString(PyExc_TypeError, "deal parameters: expected a tuple");
        return -1;
    }
    if (!PyArg_ParseTuple(params, "ppipp" "iidi" "pip:deal parameters", &clockwise, &edbsl,
                          &dcolor, &book, &selfc, &first_lead, &mandatory, &opt_prob,
                          &opt_factor, &opt_restricted, &shown_factor, &auto_fourth))
        return -1;
    FpPolicy policy;
    if (get_policy(policy_obj, &policy) < 0)
        return -1;
    if (dcolor < 0 || dcolor > 2 || first_lead < 0 || first_lead > 2 || mandatory < 0 ||
        mandatory > 15 || !(opt_prob >= 0.0) || opt_prob > 1.0 || opt_factor < 1 ||
        opt_factor > 64 || shown_factor < 1 || shown_factor > 64) {
        PyErr_SetString(PyExc_ValueError, "deal parameters out of range");
        return -1;
    }
    memset(job, 0, sizeof *job);
    job->base.magic = FP_MAGIC;
    job->base.step = clockwise ? 1 : 3;
    job->base.edbsl = (uint8_t)edbsl;
    job->base.discard_color = (uint8_t)dcolor;
    job->base.heart_book = (uint8_t)book;
    job->base.self_catch = (uint8_t)selfc;
    job->first_lead = first_lead;
    job->mandatory = mandatory;
    /* P(53 random bits < thr) = thr / 2^53: exactly 0 for 0 and 1 for 1. */
    job->opt_threshold = (uint64_t)(opt_prob * 9007199254740992.0);
    job->opt_factor = opt_factor;
    job->opt_restricted = opt_restricted;
    job->shown_factor = shown_factor;
    job->auto_fourth = auto_fourth;
    job->policy = policy;
    job->seed = seed;
    return 0;
}

PyDoc_STRVAR(random_deal_trace_doc,
             "random_deal_trace(index, seed, params, policy=0) -> (pos, (cards, legal_masks, raw))\n\n"
             "Deal number `index` of random_deals(n, seed, ...) (any n > index): the position\n"
             "after dealing and exposures, then its playout, exactly as random_deals plays it.");

static PyObject *py_random_deal_trace(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long index, seed;
    PyObject *params;
    PyObject *policy_obj = NULL;
    if (!PyArg_ParseTuple(args, "KKO|O:random_deal_trace", &index, &seed, &params, &policy_obj))
        return NULL;
    FpDealJob job;
    if (get_deal_job(params, seed, policy_obj, &job) < 0)
        return NULL;
    FpRng rng;
    FpPos p;
    uint8_t cards[FP_MAX_PLAYS];
    uint64_t legals[FP_MAX_PLAYS];
    rng_seed(&rng, seed, index);
    deal_one(&job, &p, &rng);
    PyObject *blob = pos_to_bytes(&p);
    if (!blob)
        return NULL;
    int n = fp_playout(&p, job.policy.fn, job.policy.seat, &rng, cards, legals);
    if (n < 0) {
        Py_DECREF(blob);
        PyErr_SetString(PyExc_RuntimeError, "random_deal_trace: internal error (no legal card)");
        return NULL;
    }
    PyObject *trace = trace_result(&p, n, cards, legals);
    if (!trace) {
        Py_DECREF(blob);
        return NULL;
    }
    return Py_BuildValue("(NN)", blob, trace);
}

PyDoc_STRVAR(random_deals_doc,
             "random_deals(n, seed, threads, params, policy=0)\n"
             "    -> (sum_N, sum_E, sum_S, sum_W, deals)\n\n"
             "Deal n fresh one-deck deals (first deal of a match), play each to the end with the\n"
             "policy and sum the raw scores.  Deal i uses the stream (seed, i), so the result does\n"
             "not depend on `threads`.  The GIL is released while the threads run.");

static PyObject *py_random_deals(PyObject *self, PyObject *args)
{
    (void)self;
    Py_ssize_t n;
    unsigned long long seed;
    int threads;
    PyObject *params, *policy_obj = NULL;
    if (!PyArg_ParseTuple(args, "nKiO|O:random_deals", &n, &seed, &threads, &params, &policy_obj))
        return NULL;
    FpDealJob proto;
    if (get_deal_job(params, seed, policy_obj, &proto) < 0)
        return NULL;
    if (n < 0 || threads < 1 || threads > 256) {
        PyErr_SetString(PyExc_ValueError, "random_deals: n >= 0 and 1 <= threads <= 256");
        return NULL;
    }
    if (threads > n)
        threads = n > 0 ? (int)n : 1;
    FpDealJob *jobs = PyMem_Calloc((size_t)threads, sizeof(FpDealJob));
    pthread_t *tids = PyMem_Calloc((size_t)threads, sizeof(pthread_t));
    int *started = PyMem_Calloc((size_t)threads, sizeof(int));
    if (!jobs || !tids || !started) {
        PyMem_Free(jobs);
        PyMem_Free(tids);
        PyMem_Free(started);
        return PyErr_NoMemory();
    }
    for (int t = 0; t < threads; t++) {
        jobs[t] = proto;
        jobs[t].start = (Py_ssize_t)((long double)n * t / threads);
        jobs[t].stop = (Py_ssize_t)((long double)n * (t + 1) / threads);
    }
    Py_BEGIN_ALLOW_THREADS
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&tids[t], NULL, deal_worker, &jobs[t]) == 0;
    deal_worker(&jobs[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            deal_worker(&jobs[t]); /* could not start a thread: do its share here */
    }
    Py_END_ALLOW_THREADS
    int64_t sums[4] = {0, 0, 0, 0}, deals = 0;
    int error = 0;
    for (int t = 0; t < threads; t++) {
        for (int s = 0; s < 4; s++)
            sums[s] += jobs[t].sums[s];
        deals += jobs[t].deals;
        error |= jobs[t].error;
    }
    PyMem_Free(jobs);
    PyMem_Free(tids);
    PyMem_Free(started);
    if (error) {
        PyErr_SetString(PyExc_RuntimeError, "random_deals: internal error (no legal card)");
        return NULL;
    }
    return Py_BuildValue("(LLLLL)", (long long)sums[0], (long long)sums[1], (long long)sums[2],
                         (long long)sums[3], (long long)deals);
}

/* ------------------------------------------------------------------ the Board type */

#include "_fastsolve.h"
#include "_fastenv.h" /* the batched environment: Batch (gongzhu.env.batch) */

/*
 * Board: a mutable one-deck play-phase state for gongzhu.rules.deal.Deal (legal plays, play,
 * undo at the cost of one C call each).  The rules are fp_legal / fp_apply_rec; the Board adds
 * the legal-set cache, the undo stack (the position before each play) and the finished tricks.
 * It holds no Python object, so it needs no GC support.  Scoring fields of FpPos are neutral.
 */

#define BOARD_MAX_PLAYS FP_MAX_PLAYS /* Board_new's hands hold 52 cards at most */

typedef struct {
    PyObject_HEAD
    FpPos pos;           /* the position now */
    uint64_t legal;      /* fp_legal(&pos) (0 once over) when legal_ok */
    uint64_t version;    /* +1 on every successful play and undo */
    int legal_ok;
    int n_plays;         /* plays made since construction; n_plays / 4 tricks are finished */
    FpTrick hist[BOARD_MAX_PLAYS / 4];
    FpPos stack[BOARD_MAX_PLAYS]; /* stack[i]: the position before play i (kept last: copy()
                                   * copies only the n_plays entries in use) */
} BoardObject;

static PyTypeObject BoardType;

static inline uint64_t board_legal(BoardObject *b)
{
    if (!b->legal_ok) {
        b->legal = fp_is_over(&b->pos) ? 0 : fp_legal(&b->pos);
        b->legal_ok = 1;
    }
    return b->legal;
}

/* Read a sequence of four 52-bit masks. */
static int board_masks(PyObject *obj, uint64_t out[4], const char *what)
{
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || !PySequence_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "Board: %s must be a sequence of 4 int card masks, not %.100s",
                     what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *seq = PySequence_Fast(obj, "Board: expected a sequence");
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 4) {
        PyErr_Format(PyExc_ValueError, "Board: %s must hold 4 masks (N, E, S, W), not %zd", what,
                     PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyLong_Check(v) || PyBool_Check(v)) {
            PyErr_Format(PyExc_TypeError, "Board: %s[%d] must be an int card mask, not %.100s",
                         what, i, Py_TYPE(v)->tp_name);
            Py_DECREF(seq);
            return -1;
        }
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (x == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (overflow || x < 0 || ((uint64_t)x & ~ALL_CARDS_MASK)) {
            PyErr_Format(PyExc_ValueError,
                         "Board: %s[%d] is not a card mask (an int of 52 bits, 0 <= m < 2**52)",
                         what, i);
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (uint64_t)x;
    }
    Py_DECREF(seq);
    return 0;
}

static PyObject *Board_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"hands", "restricted", "leader", "must_lead_c2", "clockwise",
                             "exposed_discard_before_suit_led", "discard_color", NULL};
    PyObject *hands_obj, *restr_obj, *leader_obj, *dcolor_obj;
    int must_c2, clockwise, edbsl;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOpppO:Board", kwlist, &hands_obj, &restr_obj,
                                     &leader_obj, &must_c2, &clockwise, &edbsl, &dcolor_obj))
        return NULL;
    uint64_t hand[4], restr[4];
    if (board_masks(hands_obj, hand, "hands") < 0 || board_masks(restr_obj, restr, "restricted") < 0)
        return NULL;
    if (!PyLong_Check(leader_obj) || PyBool_Check(leader_obj)) {
        PyErr_Format(PyExc_TypeError, "Board: leader must be an int seat 0..3, not %.100s",
                     Py_TYPE(leader_obj)->tp_name);
        return NULL;
    }
    if (!PyLong_Check(dcolor_obj) || PyBool_Check(dcolor_obj)) {
        PyErr_Format(PyExc_TypeError,
                     "Board: discard_color must be an int (0 off, 1 enforce, 2 penalty), not %.100s",
                     Py_TYPE(dcolor_obj)->tp_name);
        return NULL;
    }
    int overflow;
    long leader = PyLong_AsLongAndOverflow(leader_obj, &overflow);
    if (leader == -1 && PyErr_Occurred())
        return NULL;
    if (overflow || leader < 0 || leader > 3) {
        PyErr_SetString(PyExc_ValueError, "Board: leader must be a seat 0..3 (N E S W)");
        return NULL;
    }
    long dcolor = PyLong_AsLongAndOverflow(dcolor_obj, &overflow);
    if (dcolor == -1 && PyErr_Occurred())
        return NULL;
    if (overflow || dcolor < COLOR_OFF || dcolor > COLOR_PENALTY) {
        PyErr_SetString(PyExc_ValueError,
                        "Board: discard_color must be 0 (off), 1 (enforce) or 2 (penalty)");
        return NULL;
    }
    uint64_t seen = 0;
    int count = __builtin_popcountll(hand[0]);
    for (int s = 0; s < 4; s++) {
        if (seen & hand[s]) {
            PyErr_Format(PyExc_ValueError, "Board: hands[%d] shares cards with another hand", s);
            return NULL;
        }
        seen |= hand[s];
        if (__builtin_popcountll(hand[s]) != count || count > 13) {
            PyErr_SetString(PyExc_ValueError,
                            "Board: the four hands must hold the same number of cards, at most 13");
            return NULL;
        }
        if (restr[s] & ~hand[s]) {
            PyErr_Format(PyExc_ValueError,
                         "Board: restricted[%d] has cards that hands[%d] does not hold", s, s);
            return NULL;
        }
    }
    if (must_c2 && count > 0 && !(hand[leader] >> CARD_C2 & 1)) {
        PyErr_SetString(PyExc_ValueError,
                        "Board: must_lead_c2 needs the leader to hold the ♣2 (R5.1)");
        return NULL;
    }
    BoardObject *b = (BoardObject *)type->tp_alloc(type, 0);
    if (!b)
        return NULL;
    FpPos *p = &b->pos;
    memset(p, 0, sizeof *p);
    p->magic = FP_MAGIC;
    for (int s = 0; s < 4; s++) {
        p->hand[s] = hand[s];
        p->restr[s] = restr[s];
        p->captured[s] = 0;
        p->factor[s] = 1;   /* scoring fields: neutral */
        p->dealt_to[s] = 0;
    }
    p->n_trick = 0;
    p->leader = p->turn = (int8_t)leader;
    p->led = -1;
    p->offender = -1;
    p->suits_led = 0;
    p->must_c2 = (uint8_t)(must_c2 && count > 0);
    p->step = clockwise ? 1 : 3;
    p->edbsl = (uint8_t)edbsl;
    p->discard_color = (uint8_t)dcolor;
    b->legal = 0;
    b->legal_ok = 0;
    b->version = 0;
    b->n_plays = 0;
    return (PyObject *)b;
}

static void Board_dealloc(PyObject *self) { Py_TYPE(self)->tp_free(self); }

static PyObject *Board_legal_mask(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    return PyLong_FromUnsignedLongLong(board_legal((BoardObject *)self));
}

/* Board.play / Board.play_packed: play card `arg` for the player to move.  Returns -1 when it
 * is not legal now (nothing changes), else 0 / 1 (finished a trick) / 2 (finished the deal), with
 * the seat that played in *seat; -2 with an exception set for an argument that is no card, or
 * (never: Board_new's hands hold 52 cards at most) for a play past the end of the undo stack. */
static int board_play(BoardObject *b, PyObject *arg, int *seat)
{
    long c;
    if (PyLong_CheckExact(arg)) {
        int overflow;
        c = PyLong_AsLongAndOverflow(arg, &overflow);
        if (overflow)
            c = -1;
    } else if (PyLong_Check(arg) && !PyBool_Check(arg)) {
        int overflow;
        c = PyLong_AsLongAndOverflow(arg, &overflow);
        if (c == -1 && PyErr_Occurred())
            return -2;
        if (overflow)
            c = -1;
    } else {
        PyErr_Format(PyExc_TypeError, "Board.play: the card is an int index 0..51, not %.100s",
                     Py_TYPE(arg)->tp_name);
        return -2;
    }
    if (c < 0 || c > 51) {
        PyErr_SetString(PyExc_ValueError, "Board.play: card index out of range (0..51)");
        return -2;
    }
    uint64_t legal = board_legal(b);
    if (!(legal >> c & 1))
        return -1;
    if (b->n_plays >= BOARD_MAX_PLAYS) {
        PyErr_Format(PyExc_RuntimeError, "Board.play: more than %d plays in one deal", BOARD_MAX_PLAYS);
        return -2;
    }
    *seat = b->pos.turn;
    b->stack[b->n_plays] = b->pos;
    int done = fp_apply_rec(&b->pos, (int)c, legal, &b->hist[b->n_plays >> 2]);
    b->n_plays++;
    b->version++;
    b->legal_ok = 0;
    if (!done)
        return 0;
    return b->pos.hand[b->pos.turn] ? 1 : 2;
}

static PyObject *Board_play(PyObject *self, PyObject *arg)
{
    int seat;
    int r = board_play((BoardObject *)self, arg, &seat);
    return r == -2 ? NULL : PyLong_FromLong(r);
}

static PyObject *Board_play_packed(PyObject *self, PyObject *arg)
{
    BoardObject *b = (BoardObject *)self;
    int seat;
    int r = board_play(b, arg, &seat);
    if (r == -2)
        return NULL;
    if (r <= 0)
        return PyLong_FromLong(r < 0 ? -1 : seat);
    const FpTrick *h = &b->hist[b->n_plays / 4 - 1];
    long long code = (long long)h->leader | (long long)h->winner << 2 | (long long)h->taker << 4 |
                     (long long)b->pos.step << 6;
    for (int i = 0; i < 4; i++)
        code |= (long long)h->card[i] << (8 + 6 * i);
    code |= (long long)(r == 2) << 32 | (long long)seat << 33;
    return PyLong_FromLongLong(code);
}

static PyObject *Board_undo(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    BoardObject *b = (BoardObject *)self;
    if (b->n_plays == 0)
        Py_RETURN_FALSE;
    b->n_plays--;
    b->pos = b->stack[b->n_plays];
    b->version++;
    b->legal_ok = 0;
    Py_RETURN_TRUE;
}

static PyObject *board_mask4(const uint64_t m[4])
{
    return Py_BuildValue("(KKKK)", (unsigned long long)m[0], (unsigned long long)m[1],
                         (unsigned long long)m[2], (unsigned long long)m[3]);
}

static PyObject *Board_hands(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    return board_mask4(((BoardObject *)self)->pos.hand);
}

static PyObject *Board_restricted(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    return board_mask4(((BoardObject *)self)->pos.restr);
}

static PyObject *Board_captured(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    return board_mask4(((BoardObject *)self)->pos.captured);
}

/* ((seat, card), ...) for n cards of a trick led by `leader`. */
static PyObject *board_plays(const uint8_t *cards, int n, int leader, int step)
{
    PyObject *t = PyTuple_New(n);
    if (!t)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *pair = Py_BuildValue("(ii)", (leader + i * step) & 3, (int)cards[i]);
        if (!pair) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, pair);
    }
    return t;
}

static PyObject *Board_trick(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    const FpPos *p = &((BoardObject *)self)->pos;
    return board_plays(p->trick_card, p->n_trick, p->leader, p->step);
}

static PyObject *Board_history(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    BoardObject *b = (BoardObject *)self;
    int n = b->n_plays / 4;
    PyObject *t = PyTuple_New(n);
    if (!t)
        return NULL;
    for (int i = 0; i < n; i++) {
        const FpTrick *h = &b->hist[i];
        PyObject *plays = board_plays(h->card, 4, h->leader, b->pos.step);
        if (!plays) {
            Py_DECREF(t);
            return NULL;
        }
        PyObject *rec = Py_BuildValue("(iNii)", (int)h->leader, plays, (int)h->winner,
                                      (int)h->taker);
        if (!rec) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, rec);
    }
    return t;
}

static PyObject *Board_copy(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    BoardObject *b = (BoardObject *)self;
    BoardObject *c = (BoardObject *)Py_TYPE(self)->tp_alloc(Py_TYPE(self), 0);
    if (!c)
        return NULL;
    c->pos = b->pos;
    c->legal = b->legal;
    c->version = b->version;
    c->legal_ok = b->legal_ok;
    c->n_plays = b->n_plays;
    memcpy(c->hist, b->hist, sizeof c->hist);
    memcpy(c->stack, b->stack, (size_t)b->n_plays * sizeof(FpPos));
    return (PyObject *)c;
}

static PyObject *Board_deepcopy(PyObject *self, PyObject *memo)
{
    (void)memo;
    return Board_copy(self, NULL);
}

static PyObject *Board_repr(PyObject *self)
{
    BoardObject *b = (BoardObject *)self;
    if (fp_is_over(&b->pos))
        return PyUnicode_FromFormat("<Board over plays=%d>", b->n_plays);
    return PyUnicode_FromFormat("<Board turn=%d plays=%d>", (int)b->pos.turn, b->n_plays);
}

static PyObject *Board_get_turn(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(((BoardObject *)self)->pos.turn);
}

static PyObject *Board_get_leader(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(((BoardObject *)self)->pos.leader);
}

static PyObject *Board_get_led(PyObject *self, void *closure)
{
    (void)closure;
    const FpPos *p = &((BoardObject *)self)->pos;
    return PyLong_FromLong(p->n_trick ? p->led : -1);
}

static PyObject *Board_get_suits_led(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(((BoardObject *)self)->pos.suits_led);
}

static PyObject *Board_get_offender(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(((BoardObject *)self)->pos.offender);
}

static PyObject *Board_get_pig_taker(PyObject *self, void *closure)
{
    (void)closure;
    const FpPos *p = &((BoardObject *)self)->pos;
    for (int s = 0; s < 4; s++) /* one deck: ♠Q is a point card, so its taker captured it */
        if (p->captured[s] >> CARD_QS & 1)
            return PyLong_FromLong(s);
    return PyLong_FromLong(-1);
}

static PyObject *Board_get_n_plays(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(((BoardObject *)self)->n_plays);
}

static PyObject *Board_get_over(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(fp_is_over(&((BoardObject *)self)->pos));
}

static PyObject *Board_get_version(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((BoardObject *)self)->version);
}

static PyMethodDef Board_methods[] = {
    {"legal_mask", Board_legal_mask, METH_NOARGS,
     "legal_mask() -> the legal cards of the player to move as a 52-bit mask (0 once over)"},
    {"play", Board_play, METH_O,
     "play(card) -> -1 not legal now (nothing changes), 0 played, 1 finished a trick,\n"
     "2 finished the deal"},
    {"play_packed", Board_play_packed, METH_O,
     "play_packed(card) -> play as play() does, saying what happened in one int: -1 not legal\n"
     "now (nothing changes); 0..3 the seat that played, the trick goes on; else the trick it\n"
     "finished, packed: leader | winner << 2 | taker << 4 | step << 6 | card i << (8 + 6 i)\n"
     "(cards in playing order, seat of card i = (leader + i * step) % 4) | over << 32 |\n"
     "seat << 33 (over: it finished the deal; seat: who played)"},
    {"undo", Board_undo, METH_NOARGS, "undo() -> take back the last play; False if there is none"},
    {"hands", Board_hands, METH_NOARGS, "hands() -> the four hands as card masks"},
    {"restricted", Board_restricted, METH_NOARGS,
     "restricted() -> exposed cards in each hand still bound by R4.3, as masks"},
    {"captured", Board_captured, METH_NOARGS,
     "captured() -> the point cards each seat has taken, as masks"},
    {"trick", Board_trick, METH_NOARGS,
     "trick() -> the trick in progress as ((seat, card), ...) in playing order"},
    {"history", Board_history, METH_NOARGS,
     "history() -> finished tricks as (leader, ((seat, card) x4), winner, taker)"},
    {"copy", Board_copy, METH_NOARGS, "copy() -> an independent copy (with its undo stack)"},
    {"__copy__", Board_copy, METH_NOARGS, NULL},
    {"__deepcopy__", Board_deepcopy, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Board_getset[] = {
    {"turn", Board_get_turn, NULL, "who plays next (the next leader once a trick is over)", NULL},
    {"leader", Board_get_leader, NULL, "leader of the trick in progress, or the next leader", NULL},
    {"led", Board_get_led, NULL, "suit led in the trick in progress, -1 when none", NULL},
    {"suits_led", Board_get_suits_led, NULL, "bit per suit led in a finished trick", NULL},
    {"offender", Board_get_offender, NULL, "R5.2 penalty offender of this trick, or -1", NULL},
    {"pig_taker", Board_get_pig_taker, NULL, "who took the ♠Q, -1 until then", NULL},
    {"n_plays", Board_get_n_plays, NULL, "cards played so far", NULL},
    {"over", Board_get_over, NULL, "whether the deal is over", NULL},
    {"version", Board_get_version, NULL, "+1 on every successful play and undo", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(Board_doc,
             "Board(hands, restricted, leader, must_lead_c2, clockwise,\n"
             "      exposed_discard_before_suit_led, discard_color)\n\n"
             "A mutable one-deck play-phase state: legal_mask(), play(card), undo().  hands and\n"
             "restricted (exposed cards bound by R4.3): 4 card masks; leader: seat 0..3 (N E S W);\n"
             "discard_color: 0 off, 1 enforce, 2 penalty.");

static PyTypeObject BoardType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gongzhu.rules._fastplay.Board",
    .tp_basicsize = sizeof(BoardObject),
    .tp_itemsize = 0,
    .tp_dealloc = Board_dealloc,
    .tp_repr = Board_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Board_doc,
    .tp_methods = Board_methods,
    .tp_getset = Board_getset,
    .tp_new = Board_new,
};

static PyMethodDef fastplay_methods[] = {
    {"encode", py_encode, METH_VARARGS, encode_doc},
    {"state", py_state, METH_O, state_doc},
    {"legal_mask", py_legal_mask, METH_O, "legal_mask(pos) -> legal cards of the player to move"},
    {"play", py_play, METH_VARARGS, "play(pos, card) -> the position after a legal card"},
    {"raw_scores", py_raw_scores, METH_O, "raw_scores(pos) -> R6 raw scores of the cards taken"},
    {"playout_sums", py_playout_sums, METH_VARARGS, playout_sums_doc},
    {"playout_trace", py_playout_trace, METH_VARARGS, playout_trace_doc},
    {"random_deals", py_random_deals, METH_VARARGS, random_deals_doc},
    {"random_deal_trace", py_random_deal_trace, METH_VARARGS, random_deal_trace_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef fastplay_module = {
    PyModuleDef_HEAD_INIT,
    "gongzhu.rules._fastplay",
    "C fast path for one-deck Gongzhu deals: legal moves, random playouts, scoring, the exact\n"
    "solver and the batched environment.",
    -1,
    fastplay_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__fastplay(void)
{
    PyObject *m = PyModule_Create(&fastplay_module);
    if (!m)
        return NULL;
    if (PyModule_AddIntConstant(m, "POLICY_UNIFORM", 0) < 0 ||
        PyModule_AddIntConstant(m, "POLICY_HEURISTIC", 1) < 0 ||
        PyModule_AddIntConstant(m, "N_POLICIES", FP_N_POLICIES) < 0 ||
        PyModule_AddIntConstant(m, "POSITION_SIZE", (long)sizeof(FpPos)) < 0 ||
        PyModule_AddType(m, &BoardType) < 0 || PyModule_AddType(m, &SolverType) < 0 ||
        env_add_to_module(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
