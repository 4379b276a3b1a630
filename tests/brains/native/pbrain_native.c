/*
 * pbrain_native: a small native Gomocup brain for the sandbox tests.
 *
 * It speaks the Gomocup protocol on stdin/stdout (START, RECTSTART, RESTART, BEGIN,
 * TURN, BOARD ... DONE, INFO, END, ABOUT) and plays a legal, simple but real game:
 * a point that makes five for itself, else one that stops the opponent's five, else the
 * empty point next to its own stones that makes its longest line, else the centre, else
 * the first empty point. It shows that a native, dynamically linked program runs
 * inside the referee's sandbox.
 *
 * Build: cc -O2 -o pbrain_native pbrain_native.c
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDE 100

enum { EMPTY = 0, MINE = 1, THEIRS = 2 };

static int width, height;
static unsigned char board[MAX_SIDE][MAX_SIDE];

static void say(const char *text)
{
    fputs(text, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static int on_board(int x, int y)
{
    return x >= 0 && y >= 0 && x < width && y < height;
}

static void clear_board(void)
{
    memset(board, EMPTY, sizeof board);
}

/* The longest line through (x, y) of `who`'s stones if `who` played there. */
static int line_length(int x, int y, int who)
{
    static const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    int best = 0;
    for (int d = 0; d < 4; d++) {
        int run = 1;
        for (int sign = -1; sign <= 1; sign += 2) {
            int cx = x + sign * dirs[d][0], cy = y + sign * dirs[d][1];
            while (on_board(cx, cy) && board[cx][cy] == who) {
                run++;
                cx += sign * dirs[d][0];
                cy += sign * dirs[d][1];
            }
        }
        if (run > best)
            best = run;
    }
    return best;
}

static int next_to(int x, int y, int who)
{
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            if ((dx || dy) && on_board(x + dx, y + dy) && board[x + dx][y + dy] == who)
                return 1;
    return 0;
}

static void choose(int *bx, int *by)
{
    int best = -1;
    *bx = *by = -1;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            if (board[x][y] != EMPTY)
                continue;
            int score = 0;
            if (line_length(x, y, MINE) >= 5)
                score = 1000;
            else if (line_length(x, y, THEIRS) >= 5)
                score = 900;
            else if (next_to(x, y, MINE))
                score = 10 + line_length(x, y, MINE);
            else if (x == width / 2 && y == height / 2)
                score = 5;
            if (score > best) {
                best = score;
                *bx = x;
                *by = y;
            }
        }
    }
}

static void play(void)
{
    int x, y;
    char answer[32];
    choose(&x, &y);
    if (x < 0) {
        say("ERROR the board is full");
        return;
    }
    board[x][y] = MINE;
    snprintf(answer, sizeof answer, "%d,%d", x, y);
    say(answer);
}

static int start(int w, int h)
{
    if (w < 5 || h < 5 || w > MAX_SIDE || h > MAX_SIDE) {
        say("ERROR unsupported board size");
        return 0;
    }
    width = w;
    height = h;
    clear_board();
    say("OK");
    return 1;
}

/* The line without its line end, the command word upper-cased; 0 at the end of input. */
static int read_line(char *line, size_t size)
{
    if (!fgets(line, (int)size, stdin))
        return 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *c = line; *c && *c != ' '; c++)
        *c = (char)toupper((unsigned char)*c);
    return 1;
}

int main(void)
{
    char line[4096];
    while (read_line(line, sizeof line)) {
        int a, b, c;
        if (line[0] == '\0')
            continue;
        if (sscanf(line, "START %d", &a) == 1) {
            start(a, a);
        } else if (sscanf(line, "RECTSTART %d,%d", &a, &b) == 2) {
            start(a, b);
        } else if (strcmp(line, "RESTART") == 0) {
            clear_board();
            say("OK");
        } else if (strcmp(line, "BEGIN") == 0) {
            play();
        } else if (sscanf(line, "TURN %d,%d", &a, &b) == 2) {
            if (on_board(a, b))
                board[a][b] = THEIRS;
            play();
        } else if (strcmp(line, "BOARD") == 0) {
            clear_board();
            while (read_line(line, sizeof line) && strcmp(line, "DONE") != 0) {
                if (sscanf(line, "%d,%d,%d", &a, &b, &c) == 3 && on_board(a, b))
                    board[a][b] = (unsigned char)(c == 1 ? MINE : THEIRS);
            }
            play();
        } else if (strncmp(line, "INFO", 4) == 0) {
            /* time and memory limits: this brain is fast and small */
        } else if (strcmp(line, "ABOUT") == 0) {
            say("name=\"pbrain-native\", version=\"1.0\", author=\"referee tests\", "
                "country=\"-\"");
        } else if (strcmp(line, "END") == 0) {
            return 0;
        } else {
            say("UNKNOWN command");
        }
    }
    return 0;
}
