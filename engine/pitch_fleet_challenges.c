/* engine/pitch_fleet_challenges.c — Pitch Fleet's solo challenge cards:
 * the built-in catalogue (the rulebook's challenges 1-16 and 20, with our
 * default VP, moves, fingers and card restriction) and the parser and
 * validator of a `challenges` data file (pitch_fleet_data.h; the format,
 * every default and where it comes from: docs/games/pitch-fleet-data.md). */
#include "engine/pitch_fleet_data.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ASCII_FIRST_PRINTABLE   0x20
#define ASCII_LAST_PRINTABLE    0x7e
/* Longest word of a line shown in a message. */
#define WORD_MAX                32

/* The rulebook's setup and challenge texts are quoted as printed, with
 * their spelling ("arrive Venus"); the numbers after them are ours: the
 * rulebook prints VP, moves and the gesture only on the cards. */
const char pf_builtin_challenges[] =
"# Pitch Fleet's built-in challenge cards: the rulebook's 1-16 and 20.\n"
"# N vp=VP moves=MOVES fingers=F[+F...] [card=CODE|none] | Setup: ... | Challenge: ...\n"
"1 vp=2 moves=2 fingers=index+middle | Setup: One red Starship on the asteroid belt of Venus. "
"| Challenge: Let the red Starship arrive Venus.\n"
"2 vp=3 moves=2 fingers=index+middle | Setup: Two red Starships on both satellites of Mars. "
"| Challenge: Arrive Mars and let both red starships moved.\n"
"3 vp=3 moves=3 fingers=index+middle | Setup: Equally separate your Starship and Saturn by four "
"magnetic beams. | Challenge: Arrive Saturn and let all magnetic beams moved.\n"
"4 vp=2 moves=2 fingers=index+middle | Setup: One red Starship on Saturn and equally separate your "
"Starship and Saturn by two magnetic beams. | Challenge: Outbound the red Starship.\n"
"5 vp=1 moves=2 fingers=index+middle | Setup: One red Starship on any planet of a corner board. "
"| Challenge: Outbound the red Starship.\n"
"6 vp=2 moves=3 fingers=index+middle | Setup: None. "
"| Challenge: Arrive Pluto without arriving any satellite.\n"
"7 vp=3 moves=2 fingers=index+middle | Setup: One upstanding magnetic beam on each of the three "
"satellites of Jupiter. | Challenge: Arrive Jupiter without knocking down any beam.\n"
"8 vp=3 moves=2 fingers=index+middle | Setup: One red Starship on Mars, surrounded by four magnetic "
"beams. | Challenge: Outbound the red Starship.\n"
"9 vp=4 moves=2 fingers=index+middle | Setup: Six upstanding magnetic beams side-by-side on the "
"asteroid belt of Venus. Stable the beams with your other hand. One red Starship on Venus. "
"| Challenge: Bounding with the beams, and then outbound the red Starship.\n"
"10 vp=4 moves=2 fingers=index+middle | Setup: Six upstanding magnetic beams side-by-side on the "
"asteroid belt of Venus. Stable the beams with your other hand. "
"| Challenge: Bounding with the beams, and then arrive Venus.\n"
"11 vp=3 moves=2 fingers=index+middle | Setup: Two red Starships on both satellites of Neptune. "
"| Challenge: Outbound both red Starships.\n"
"12 vp=2 moves=3 fingers=index+middle | Setup: None. | Challenge: Arrive Venus and Neptune.\n"
"13 vp=3 moves=2 fingers=index+middle | Setup: Set six magnetic beams on Mercury. Stack them up as "
"a campfire. | Challenge: Arrive Mercury.\n"
"14 vp=2 moves=2 fingers=index+middle | Setup: Surround Earth with three magnetic beams. "
"| Challenge: Arrive Earth with your Starship not overlap any beam.\n"
"15 vp=3 moves=3 fingers=index+middle | Setup: Stack three red Starships on Mars. "
"| Challenge: Let all red Starships touch the board.\n"
"16 vp=2 moves=2 fingers=index+middle | Setup: Stack two red Starships on Mercury. "
"| Challenge: Outbound one and only one red Starship.\n"
"# 20: the rulebook's example names its goal, its 3 moves and the magnetic barrier; its set-up\n"
"# is only in the card's illustration.\n"
"20 vp=4 moves=3 fingers=index card=B4 | Setup: As the card's illustration shows. "
"| Challenge: Arrive all five satellites of Uranus.\n";

/* ---- Errors. */

/* Where an error is: the line's field ("data.challenges line 12") and,
 * once known, the card's number (0: not yet). */
struct where {
        char field[ENG_FIELD_MAX];
        unsigned number;
};

/* "data.challenges line 12 (card 21): moves: must be 1..9", field
 * "data.challenges line 12". */
static int fail(struct eng_error *ret_err, const struct where *at, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int fail(struct eng_error *ret_err, const struct where *at, const char *fmt, ...) {
        va_list ap;
        int n;

        if (!ret_err)
                return -EINVAL;
        snprintf(ret_err->field, sizeof ret_err->field, "%s", at->field);
        if (at->number)
                n = snprintf(ret_err->message, sizeof ret_err->message, "%s (card %u): ", at->field,
                             at->number);
        else
                n = snprintf(ret_err->message, sizeof ret_err->message, "%s: ", at->field);
        if (n < 0 || (size_t) n >= sizeof ret_err->message)
                return -EINVAL;
        va_start(ap, fmt);
        vsnprintf(ret_err->message + n, sizeof ret_err->message - (size_t) n, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* ---- Words. */

struct word {
        const char *s;
        size_t len;
};

static bool word_is(struct word w, const char *s) {
        return strlen(s) == w.len && memcmp(w.s, s, w.len) == 0;
}

/* The word as a C string (cut to WORD_MAX) for a message. */
static const char *word_text(struct word w, char buf[WORD_MAX + 1]) {
        size_t n = w.len < WORD_MAX ? w.len : WORD_MAX;

        memcpy(buf, w.s, n);
        buf[n] = '\0';
        return buf;
}

static bool is_blank(char c) {
        return c == ' ' || c == '\t';
}

/* The next blank-separated word of [line, line + len) from *pos. */
static bool next_word(const char *line, size_t len, size_t *pos, struct word *ret) {
        while (*pos < len && is_blank(line[*pos]))
                (*pos)++;
        if (*pos >= len)
                return false;
        ret->s = line + *pos;
        while (*pos < len && !is_blank(line[*pos]))
                (*pos)++;
        ret->len = (size_t) (line + *pos - ret->s);
        return true;
}

/* A decimal number of at most 3 digits: 0 with *ret, -EINVAL otherwise. */
static int parse_small(const char *s, size_t len, unsigned *ret) {
        unsigned v = 0;

        if (len == 0 || len > 3)
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                v = v * 10 + (unsigned) (s[i] - '0');
        }
        *ret = v;
        return 0;
}

/* ---- A card's line. */

enum key {
        KEY_VP = 0,
        KEY_MOVES,
        KEY_FINGERS,
        KEY_CARD,
        N_KEYS,
};

static const char *const key_names[N_KEYS] = {
        [KEY_VP] = "vp", [KEY_MOVES] = "moves", [KEY_FINGERS] = "fingers", [KEY_CARD] = "card",
};

static const bool key_required[N_KEYS] = {
        [KEY_VP] = true, [KEY_MOVES] = true, [KEY_FINGERS] = true, [KEY_CARD] = false,
};

static int parse_range(struct word v, const char *key, unsigned max, uint8_t *ret, const struct where *at,
                       struct eng_error *ret_err) {
        char buf[WORD_MAX + 1];
        unsigned n;

        if (parse_small(v.s, v.len, &n) < 0 || n < 1 || n > max)
                return fail(ret_err, at, "%s: \"%s\" must be 1..%u", key, word_text(v, buf), max);
        *ret = (uint8_t) n;
        return 0;
}

/* One "key=value" of the head. */
static int parse_field(struct word w, struct pf_challenge *card, bool seen[N_KEYS], const struct where *at,
                       struct eng_error *ret_err) {
        const char *eq = memchr(w.s, '=', w.len);
        struct word k, v;
        char buf[WORD_MAX + 1];
        unsigned key, mask;
        int r;

        if (!eq)
                return fail(ret_err, at, "\"%s\" is not key=value; the keys are vp, moves, fingers and card",
                            word_text(w, buf));
        k = (struct word) { w.s, (size_t) (eq - w.s) };
        v = (struct word) { eq + 1, w.len - k.len - 1 };
        for (key = 0; key < N_KEYS; key++)
                if (word_is(k, key_names[key]))
                        break;
        if (key == N_KEYS)
                return fail(ret_err, at, "%s: is not a key; the keys are vp, moves, fingers and card",
                            word_text(k, buf));
        if (seen[key])
                return fail(ret_err, at, "%s: is given twice", key_names[key]);
        seen[key] = true;
        switch (key) {
        case KEY_VP:
                return parse_range(v, "vp", PF_MAX_CHALLENGE_VP, &card->vp, at, ret_err);
        case KEY_MOVES:
                return parse_range(v, "moves", PF_MAX_CHALLENGE_MOVES, &card->moves, at, ret_err);
        case KEY_FINGERS:
                if (pf_fingers_parse(v.s, v.len, &mask) < 0)
                        return fail(ret_err, at, "fingers: \"%s\" is not a list of thumb, index, middle, "
                                    "ring, little, knuckle, beam joined by +, each once", word_text(v, buf));
                card->fingers = (uint8_t) mask;
                return 0;
        default:
                if (word_is(v, "none")) {
                        card->card = PF_CARD_NONE;
                        return 0;
                }
                r = pf_card_find(v.s, v.len);
                if (r < 0)
                        return fail(ret_err, at, "card: \"%s\" is not a power card (B1..B10, A1..A5) or none",
                                    word_text(v, buf));
                card->card = (uint8_t) r;
                return 0;
        }
}

/* One of the texts after the head: "Setup: ..." or "Challenge: ...". */
static int parse_text(const char *s, size_t len, const char *label, const char *key, char *ret,
                      const struct where *at, struct eng_error *ret_err) {
        size_t t0 = 0, t1 = len, n_label = strlen(label);

        while (t0 < t1 && is_blank(s[t0]))
                t0++;
        while (t1 > t0 && is_blank(s[t1 - 1]))
                t1--;
        if (t1 - t0 < n_label || memcmp(s + t0, label, n_label) != 0)
                return fail(ret_err, at, "%s: missing; the part begins \"%s\"", key, label);
        t0 += n_label;
        while (t0 < t1 && is_blank(s[t0]))
                t0++;
        if (t0 == t1)
                return fail(ret_err, at, "%s: is empty; write what the card says after \"%s\"", key, label);
        if (t1 - t0 > PF_CHALLENGE_TEXT_MAX)
                return fail(ret_err, at, "%s: is %zu characters; at most %d", key, t1 - t0,
                            PF_CHALLENGE_TEXT_MAX);
        for (size_t i = t0; i < t1; i++)
                if (s[i] == '"' || s[i] == '\\' || s[i] == '\t')
                        return fail(ret_err, at, "%s: holds '%s'; a text has no \", \\ or tab", key,
                                    s[i] == '\t' ? "\\t" : s[i] == '"' ? "\"" : "\\");
        memcpy(ret, s + t0, t1 - t0);
        ret[t1 - t0] = '\0';
        return 0;
}

/* "N key=value ... | Setup: ... | Challenge: ...". */
static int parse_line(const char *line, size_t n_line, struct pf_challenge *card, struct where *at,
                      struct eng_error *ret_err) {
        const char *bar1 = memchr(line, '|', n_line), *bar2 = NULL;
        size_t head = bar1 ? (size_t) (bar1 - line) : n_line, pos = 0;
        bool seen[N_KEYS] = { false };
        char buf[WORD_MAX + 1];
        unsigned number;
        struct word w;
        int r;

        memset(card, 0, sizeof *card);
        card->card = PF_CARD_NONE;
        if (!next_word(line, head, &pos, &w))
                return fail(ret_err, at, "number: missing; a card line is \"N vp=.. moves=.. fingers=.. "
                            "| Setup: .. | Challenge: ..\"");
        if (parse_small(w.s, w.len, &number) < 0 || number < 1 || number > PF_MAX_CHALLENGE_NUMBER)
                number = 0;
        at->number = number;            /* named from here on when it is one */
        for (size_t i = 0; i < n_line; i++) {
                unsigned char c = (unsigned char) line[i];

                if (c != '\t' && (c < ASCII_FIRST_PRINTABLE || c > ASCII_LAST_PRINTABLE))
                        return fail(ret_err, at, "holds byte 0x%02x at column %zu; a card line is printable "
                                    "ASCII", c, i + 1);
        }
        if (!number)
                return fail(ret_err, at, "number: \"%s\" must be 1..%d", word_text(w, buf),
                            PF_MAX_CHALLENGE_NUMBER);
        card->number = (uint8_t) number;
        while (next_word(line, head, &pos, &w)) {
                r = parse_field(w, card, seen, at, ret_err);
                if (r < 0)
                        return r;
        }
        for (unsigned k = 0; k < N_KEYS; k++)
                if (key_required[k] && !seen[k])
                        return fail(ret_err, at, "%s: missing; every card gives vp, moves and fingers",
                                    key_names[k]);
        if (!bar1)
                return fail(ret_err, at, "setup: missing; the set-up follows \"| Setup:\"");
        bar2 = memchr(bar1 + 1, '|', n_line - head - 1);
        if (!bar2) {
                /* One part: a set-up without its goal, or a goal without its set-up. */
                r = parse_text(bar1 + 1, n_line - head - 1, "Setup:", "setup", card->setup, at, ret_err);
                if (r < 0)
                        return r;
                return fail(ret_err, at, "challenge: missing; the goal follows \"| Challenge:\"");
        }
        if (memchr(bar2 + 1, '|', (size_t) (line + n_line - bar2 - 1)))
                return fail(ret_err, at, "holds a third \"|\"; a card line has two, before Setup: and "
                            "Challenge:");
        r = parse_text(bar1 + 1, (size_t) (bar2 - bar1 - 1), "Setup:", "setup", card->setup, at, ret_err);
        if (r < 0)
                return r;
        return parse_text(bar2 + 1, (size_t) (line + n_line - bar2 - 1), "Challenge:", "challenge", card->goal,
                          at, ret_err);
}

/* Puts card in ret, sorted by number.  line_of[number] is the line of the
 * file that gave that number (0: none, or the built-in text's): a card of a
 * number the file already gave is refused; one of the built-in text's is
 * replaced. */
static int add(struct pf_challenges *ret, const struct pf_challenge *card,
               const unsigned line_of[PF_MAX_CHALLENGE_NUMBER + 1], const struct where *at,
               struct eng_error *ret_err) {
        unsigned i;

        if (line_of[card->number])
                return fail(ret_err, at, "number: %u is already the number of line %u's card", card->number,
                            line_of[card->number]);
        for (i = 0; i < ret->n && ret->cards[i].number < card->number; i++)
                ;
        if (i < ret->n && ret->cards[i].number == card->number) {
                ret->cards[i] = *card;
                return 0;
        }
        if (ret->n == PF_MAX_CHALLENGES)
                return fail(ret_err, at, "is card %d; at most %d are accepted", PF_MAX_CHALLENGES + 1,
                            PF_MAX_CHALLENGES);
        memmove(&ret->cards[i + 1], &ret->cards[i], (ret->n - i) * sizeof ret->cards[0]);
        ret->cards[i] = *card;
        ret->n++;
        return 0;
}

/* Parses text into ret; allow_builtin: its first line may say "builtin". */
static int parse(const char *text, size_t len, bool allow_builtin, struct pf_challenges *ret,
                 struct eng_error *ret_err) {
        struct where file = { .field = "data.challenges" };
        unsigned line_of[PF_MAX_CHALLENGE_NUMBER + 1] = { 0 };
        const char *line;
        size_t pos = 0, n_line;
        unsigned line_no = 0, lines = 0;

        if (!text || !ret)
                return fail(ret_err, &file, "cannot be read");
        if (len > PF_CHALLENGES_MAX_LEN)
                return fail(ret_err, &file, "is %zu bytes; at most %d are accepted", len, PF_CHALLENGES_MAX_LEN);
        ret->n = 0;
        while (eng_data_next_line(text, len, &pos, &line, &n_line, &line_no) > 0) {
                struct where at = { .number = 0 };
                struct pf_challenge card;
                int r;

                snprintf(at.field, sizeof at.field, "data.challenges line %u", line_no);
                lines++;
                if (n_line == strlen("builtin") && memcmp(line, "builtin", n_line) == 0) {
                        if (!allow_builtin || lines != 1)
                                return fail(ret_err, &at, "builtin: only the first line may say builtin");
                        r = parse(pf_builtin_challenges, strlen(pf_builtin_challenges), false, ret, ret_err);
                        if (r < 0)
                                return r;
                        continue;
                }
                r = parse_line(line, n_line, &card, &at, ret_err);
                if (r < 0)
                        return r;
                r = add(ret, &card, line_of, &at, ret_err);
                if (r < 0)
                        return r;
                line_of[card.number] = line_no;
        }
        if (ret->n == 0)
                return fail(ret_err, &file, "holds no card; 1 to %d are needed", PF_MAX_CHALLENGES);
        return 0;
}

int pf_challenges_parse(const char *text, size_t len, struct pf_challenges *ret, struct eng_error *ret_err) {
        return parse(text, len, true, ret, ret_err);
}

const struct pf_challenge *pf_challenge_find(const struct pf_challenges *cat, unsigned number) {
        if (!cat)
                return NULL;
        for (unsigned i = 0; i < cat->n && i < PF_MAX_CHALLENGES; i++)
                if (cat->cards[i].number == number)
                        return &cat->cards[i];
        return NULL;
}
