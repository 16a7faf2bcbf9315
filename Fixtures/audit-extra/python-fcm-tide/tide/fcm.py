"""FCM sender.

Example: {"aps": {"event": "update", "content-state": {"level": 1}}}
"""
import time
from firebase_admin import messaging


def update_message(token, level):
    return messaging.Message(
        token=token,
        apns=messaging.APNSConfig(
            headers={"apns-push-type": "liveactivity"},
            payload=messaging.APNSPayload(aps=messaging.Aps(custom_data={  # #SITE fcm-custom-data
                "event": "update",
                "timestamp": int(time.time()),
                "content-state": {"level": level},
            })),  # #END
        ),
    )


def start_body(harbor):
    return dict(aps=dict(  # #SITE start-kwargs
        event="start",
        timestamp=int(time.time()),
        attributes=dict(harbor=harbor),
        content_state=dict(level=1.0),
    ))  # #END
