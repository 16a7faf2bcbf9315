<?php
namespace App\Push;

class AdminConsole
{
    public function testStart(string $harbor): array
    {
        $aps = []; // #SITE admin-assign
        $aps['event'] = 'start';
        $aps['timestamp'] = time();
        $aps['attributes-type'] = 'tideAttributes';
        $aps['attributes'] = ['harbor' => $harbor];
        $aps['content-state'] = ['level' => 0.5]; // #END
        return ['aps' => $aps];
    }

    public function inspect(string $raw): array
    {
        $body = json_decode($raw, true); // #DECOY reads a body
        return ['event' => $body['aps']['event'] ?? null, 'content-state' => $body['aps']['content-state'] ?? null];
    }
}
