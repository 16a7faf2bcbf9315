package push

import (
	"time"

	"github.com/sideshow/apns2/payload"
)

// Update builds an update with the apns2 builder.
func Update(level float64) *payload.Payload {
	p := payload.NewPayload(). // #SITE update-builder
		SetEvent(payload.LiveActivityEventUpdate).
		SetTimestamp(time.Now().Unix()).
		SetContentState(map[string]interface{}{"level": level}) // #END
	return p
}
