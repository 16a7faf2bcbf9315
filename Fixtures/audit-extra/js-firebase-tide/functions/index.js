const admin = require("firebase-admin");

exports.pushUpdate = async (token, level) => {
  await admin.messaging().send({
    token,
    apns: {
      headers: { "apns-push-type": "liveactivity", "apns-topic": "com.example.tide.push-type.liveactivity" },
      payload: { // #SITE fcm-update
        aps: {
          timestamp: Math.floor(Date.now() / 1000),
          event: "update",
          "content-state": { level },
        },
      }, // #END
    },
  });
};

exports.endBody = (level) => `{"aps":{"event":"end","timestamp":${Math.floor(Date.now() / 1000)},"content-state":${JSON.stringify({ level })}}}`; // #SITE end-template #END

/* Old start body, kept for reference:
const old = { aps: { event: "start", "attributes-type": "TideAttributes" } };
*/
exports.describe = (body) => ({ event: body.aps.event, hasState: Boolean(body.aps["content-state"]) }); // #DECOY reader
