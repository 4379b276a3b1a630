/* A tsumogiri mjai bot in C, for benchmarks: a native program that answers at once and
 * touches little memory (the built-in referee.games.riichi.bots.tsumogiri is its Python
 * counterpart).
 *
 * One JSON event a line on standard input (the referee's plain style, not mjai.app's
 * batched arrays), one answer line for each: after its own draw, ``hora`` when the
 * fourteen tiles make a complete hand (its hand is always closed, so tsumo is a yaku),
 * else the drawn tile (``tsumogiri``); ``none`` to everything else, so it never calls,
 * never declares riichi and never wins on a discard (the Python bot rons when it can: a
 * game where it does is not the same with this bot; in the benchmark's games, seeds 0 to
 * 29, it never does). It ends after ``end_game``. The JSON is read by looking for the
 * keys the referee writes (compact JSON), not parsed in full.
 *
 * Built by benchmarks/native.py: cc -O2 -o tsumogiri_mjai tsumogiri_mjai.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KINDS 34

static int seat = -1;
static int hand[KINDS];  /* its thirteen tiles: a tsumogiri bot's hand never changes */

/* The kind 0..33 of an mjai tile name ("5mr" is a red 5m), -1 for "?" or anything else. */
static int kind_of(const char *name, size_t length) {
    static const char honours[] = "ESWNPFC";
    if (length == 1) {
        const char *at = strchr(honours, name[0]);
        return at != NULL && name[0] != '\0' ? (int)(at - honours) + 27 : -1;
    }
    if ((length == 2 || (length == 3 && name[2] == 'r')) && name[0] >= '1' && name[0] <= '9') {
        const char *suits = "mps";
        const char *at = strchr(suits, name[1]);
        if (at != NULL && name[1] != '\0') return (int)(at - suits) * 9 + (name[0] - '1');
    }
    return -1;
}

/* The text of the string value after `"key":"` in line (NULL if absent); its length. */
static const char *string_value(const char *line, const char *key, size_t *length) {
    const char *at = strstr(line, key);
    if (at == NULL) return NULL;
    at += strlen(key);
    const char *end = strchr(at, '"');
    if (end == NULL) return NULL;
    *length = (size_t)(end - at);
    return at;
}

static int int_value(const char *line, const char *key) {
    const char *at = strstr(line, key);
    return at == NULL ? -1 : atoi(at + strlen(key));
}

/* Melds only (counts of 3n tiles), suit by suit: the lowest tile left either starts a
 * pung or as many chows as its count modulo 3 (a pung of each of three tiles in a row
 * is the same tiles as three chows). */
static int melds_only(int *counts) {
    int c[KINDS];
    memcpy(c, counts, sizeof c);
    for (int k = 0; k < KINDS; k++) {
        if (c[k] < 0) return 0;
        int chows = c[k] % 3;
        if (chows == 0) continue;
        if (k >= 27 || k % 9 > 6 || c[k + 1] < chows || c[k + 2] < chows) return 0;
        c[k + 1] -= chows;
        c[k + 2] -= chows;
    }
    return 1;
}

static int complete(int *counts) {
    int pairs = 0, orphans = 0, orphan_pair = 0;
    static const int terminals[13] = {0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33};
    for (int k = 0; k < KINDS; k++) pairs += counts[k] == 2;
    if (pairs == 7) return 1;  /* seven pairs */
    for (int i = 0; i < 13; i++) {
        orphans += counts[terminals[i]] >= 1;
        orphan_pair += counts[terminals[i]] == 2;
    }
    if (orphans == 13 && orphan_pair == 1) return 1;  /* thirteen orphans */
    for (int k = 0; k < KINDS; k++) {
        if (counts[k] < 2) continue;
        counts[k] -= 2;
        int ok = melds_only(counts);
        counts[k] += 2;
        if (ok) return 1;
    }
    return 0;
}

static void start_kyoku(const char *line) {
    memset(hand, 0, sizeof hand);
    const char *at = strstr(line, "\"tehais\":[");
    if (at == NULL || seat < 0) return;
    at += strlen("\"tehais\":[");
    for (int s = 0; s < seat; s++) {  /* skip the other seats' lists */
        at = strchr(at, ']');
        if (at == NULL) return;
        at++;
    }
    const char *end = strchr(at, ']');
    while (end != NULL && (at = strchr(at, '"')) != NULL && at < end) {
        const char *close = strchr(at + 1, '"');
        if (close == NULL) return;
        int k = kind_of(at + 1, (size_t)(close - at - 1));
        if (k >= 0) hand[k]++;
        at = close + 1;
    }
}

static void answer(const char *line) {
    size_t length = 0;
    const char *type = string_value(line, "\"type\":\"", &length);
    if (type != NULL && length == 10 && strncmp(type, "start_game", 10) == 0) {
        seat = int_value(line, "\"id\":");
    } else if (type != NULL && length == 11 && strncmp(type, "start_kyoku", 11) == 0) {
        start_kyoku(line);
    } else if (type != NULL && length == 5 && strncmp(type, "tsumo", 5) == 0
               && int_value(line, "\"actor\":") == seat) {
        size_t size = 0;
        const char *pai = string_value(line, "\"pai\":\"", &size);
        int k = pai == NULL ? -1 : kind_of(pai, size);
        if (k >= 0) {
            hand[k]++;
            int win = complete(hand);
            hand[k]--;
            if (win)
                printf("{\"type\":\"hora\",\"actor\":%d,\"target\":%d,\"pai\":\"%.*s\"}\n",
                       seat, seat, (int)size, pai);
            else
                printf("{\"type\":\"dahai\",\"actor\":%d,\"pai\":\"%.*s\",\"tsumogiri\":true}\n",
                       seat, (int)size, pai);
            fflush(stdout);
            return;
        }
    }
    fputs("{\"type\":\"none\"}\n", stdout);
    fflush(stdout);
}

int main(void) {
    static char line[1 << 16];
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (line[0] == '\n' || line[0] == '\0') continue;
        answer(line);
        if (strstr(line, "\"type\":\"end_game\"") != NULL) return 0;
    }
    return 0;
}
