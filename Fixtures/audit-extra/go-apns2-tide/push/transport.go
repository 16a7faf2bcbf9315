package push

import "github.com/sideshow/apns2"

// Send wraps a caller-built body.
func Send(c *apns2.Client, token string, body interface{}) error {
	n := &apns2.Notification{ // #DECOY transport wrapper
		DeviceToken: token,
		Topic:       "com.example.tide.push-type.liveactivity",
		PushType:    apns2.PushTypeLiveActivity,
		Payload:     body,
	}
	_, err := c.Push(n)
	return err
}
