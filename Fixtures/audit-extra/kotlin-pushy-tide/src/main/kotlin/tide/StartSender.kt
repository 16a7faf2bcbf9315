package tide

import kotlinx.serialization.json.*

fun startBody(harbor: String): JsonObject = buildJsonObject { // #SITE start-kotlinx
    putJsonObject("aps") {
        put("timestamp", System.currentTimeMillis() / 1000)
        put("event", "start")
        put("attributes-type", "TideAttributes")
        putJsonObject("attributes") { put("harbor", harbor) }
        putJsonObject("content-state") { put("level", 0.4) }
        putJsonObject("alert") {
            put("title", "Tide")
            put("body", "Tracking $harbor")
        }
    }
} // #END
