// The floor for `activity-push bench validate`: simdjson (Debian libsimdjson-dev) parsing the same payload bytes
// into its DOM, with no validation. Built on demand by the bench with
//   g++ -O2 -std=c++17 scripts/bench_simdjson.cpp -lsimdjson
// usage: bench_simdjson PAYLOAD.json SECONDS
// Prints one JSON object: {"per_sec": N, "valid": bool, "implementation": "haswell", "version": "3.0.1"}.
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s PAYLOAD.json SECONDS\n", argv[0]);
        return 2;
    }
    const double seconds = std::atof(argv[2]);
    simdjson::padded_string body;
    if (simdjson::padded_string::load(argv[1]).get(body)) {
        std::printf("{\"error\": \"cannot read %s\"}\n", argv[1]);
        return 0;
    }
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    const bool valid = !parser.parse(body).get(root);
    long sink = 0;
    for (int i = 0; i < 2000; i++) {
        if (!parser.parse(body).get(root)) sink++;
    }
    long n = 0;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
        for (int i = 0; i < 2000; i++) {
            // Touch the root so the parse cannot be dropped.
            if (!parser.parse(body).get(root) && root.is_object()) sink++;
        }
        n += 2000;
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < seconds);
    std::printf("{\"per_sec\": %.1f, \"valid\": %s, \"implementation\": \"%s\", \"version\": \"%s\", \"sink\": %ld}\n",
                n / elapsed, valid ? "true" : "false",
                simdjson::get_active_implementation()->name().c_str(), SIMDJSON_STRINGIFY(SIMDJSON_VERSION), sink);
    return 0;
}
