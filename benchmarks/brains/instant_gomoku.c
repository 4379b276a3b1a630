/* An instant Gomocup brain in C, for benchmarks: a native program, as Gomocup's brains
 * are, that answers at once and touches little memory (tests/brains/instant.py is the
 * same brain in Python).
 *
 * It plays what ``instant.py --pattern`` plays: the first empty point, in scan order,
 * of its own colour class ((x + 2y) % 4 < 2 for the first player), so that nobody ever
 * makes five and games fill the board. It knows START, RESTART, BEGIN, TURN, BOARD,
 * INFO (ignored), ABOUT and END, and answers anything else with UNKNOWN.
 *
 * Built by benchmarks/native.py: cc -O2 -o instant_gomoku instant_gomoku.c */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_SIDE 100

static int width, height, stones;
static unsigned char taken[MAX_SIDE * MAX_SIDE];

static void say(const char *text) {
    fputs(text, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static void reset(int w, int h) {
    width = w;
    height = h;
    stones = 0;
    memset(taken, 0, sizeof taken);
}

static void take(int x, int y) {
    if (x >= 0 && y >= 0 && x < width && y < height && !taken[y * width + x]) {
        taken[y * width + x] = 1;
        stones++;
    }
}

static void play(void) {
    int black = stones % 2 == 0;
    for (int pass = 0; pass < 2; pass++) {  /* own class first, then any empty point */
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                if (taken[y * width + x] || (pass == 0 && (((x + 2 * y) % 4 < 2) != black)))
                    continue;
                take(x, y);
                printf("%d,%d\n", x, y);
                fflush(stdout);
                return;
            }
        }
    }
    say("ERROR the board is full");
}

static char *trimmed(char *line) {
    while (isspace((unsigned char)*line)) line++;
    char *end = line + strlen(line);
    while (end > line && isspace((unsigned char)end[-1])) *--end = '\0';
    return line;
}

static int is_command(const char *line, const char *word) {
    size_t n = strlen(word);
    return strncasecmp(line, word, n) == 0 && (line[n] == '\0' || line[n] == ' ');
}

int main(void) {
    static char buffer[65536];
    while (fgets(buffer, sizeof buffer, stdin) != NULL) {
        char *line = trimmed(buffer);
        int x, y, colour;
        if (*line == '\0') continue;
        if (is_command(line, "START")) {
            int side = atoi(line + 5);
            if (side < 5 || side > MAX_SIDE) { say("ERROR unsupported size"); continue; }
            reset(side, side);
            say("OK");
        } else if (is_command(line, "RESTART")) {
            reset(width, height);
            say("OK");
        } else if (is_command(line, "BEGIN")) {
            play();
        } else if (is_command(line, "TURN")) {
            if (sscanf(line + 4, " %d,%d", &x, &y) == 2) take(x, y);
            play();
        } else if (is_command(line, "BOARD")) {
            reset(width, height);
            while (fgets(buffer, sizeof buffer, stdin) != NULL) {
                line = trimmed(buffer);
                if (*line == '\0' || strncasecmp(line, "DONE", 4) == 0) break;
                if (sscanf(line, "%d,%d,%d", &x, &y, &colour) == 3) take(x, y);
            }
            play();
        } else if (is_command(line, "INFO")) {
            continue;
        } else if (is_command(line, "ABOUT")) {
            say("name=\"instant-c\", version=\"1\"");
        } else if (is_command(line, "END")) {
            return 0;
        } else {
            say("UNKNOWN");
        }
    }
    return 0;
}
