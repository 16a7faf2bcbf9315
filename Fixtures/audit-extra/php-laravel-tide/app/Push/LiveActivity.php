<?php
namespace App\Push;

class LiveActivity
{
    public function end(array $state): array
    {
        $payload = ['aps' => [ // #SITE end-array
            'timestamp' => time(),
            'event' => 'end',
            'content-state' => $state,
            'dismissal-date' => time() + 60,
        ]]; // #END
        return $payload;
    }

    public function start(string $harbor): array
    {
        return array('aps' => array( // #SITE start-array
            'event' => 'start', 'timestamp' => time(), 'attributes-type' => 'TideAttributes',
            'attributes' => array('harbor' => $harbor), 'content-state' => array('level' => 1),
            'alert' => array('title' => 'Tide', 'body' => 'Tracking'))); // #END
    }
}
