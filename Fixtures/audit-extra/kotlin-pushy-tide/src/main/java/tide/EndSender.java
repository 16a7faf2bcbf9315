package tide;

import java.util.HashMap;
import java.util.Map;

public final class EndSender {
    public static Map<String, Object> endBody(long now) {
        Map<String, Object> aps = new HashMap<>(); // #SITE end-java
        aps.put("event", "end");
        aps.put("timestamp", now);
        aps.put("dismissal-date", now + 60); // #END
        Map<String, Object> body = new HashMap<>();
        body.put("aps", aps);
        return body;
    }

    /** Transport: sends whatever body the caller built. */
    public static Object wrap(String token, String payload) {
        return new SimpleApnsPushNotification(token, "com.example.tide.push-type.liveactivity", payload); // #DECOY transport
    }
}
