package tide

import com.eatthepath.pushy.apns.util.LiveActivityEvent
import com.eatthepath.pushy.apns.util.SimpleLiveActivityApnsPayloadBuilder
import java.time.Instant

fun buildUpdate(level: Double): String =
    SimpleLiveActivityApnsPayloadBuilder() // #SITE update-pushy
        .setEvent(LiveActivityEvent.UPDATE)
        .setTimestamp(Instant.now())
        .addContentStateProperty("level", level)
        .build() // #END
