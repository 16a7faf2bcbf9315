package tide

// Retry path: still builds its own map.
fun retryBody(harbor: String, level: Double): Map<String, Any> =
    mapOf( // #SITE retry-map
        "aps" to mapOf(
            "timestamp" to System.currentTimeMillis() / 1000,
            "event" to "start",
            "content-state" to mapOf("level" to level),
            "alert" to mapOf("title" to "Tide", "body" to "Retrying"),
        ),
        "attributes-type" to "TideAttributes",
        "attributes" to mapOf("harbor" to harbor, "alert" to mapOf("title" to "Tide")),
    ) // #END
