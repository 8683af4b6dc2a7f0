<?php

/**
 * @file
 * The Drupal interfaces the module's classes name, as declared by Drupal core.
 *
 * Only the methods the module calls are declared, with core's signatures
 * (Drupal 10.3/11). Symfony's HttpFoundation and DependencyInjection are the
 * real libraries (Debian's packages); Drupal itself is not installable here.
 */

namespace Drupal\Component\Datetime {

  interface TimeInterface {

    public function getRequestTime();

  }

}

namespace Drupal\Core\DependencyInjection {

  use Symfony\Component\DependencyInjection\ContainerInterface;

  interface ContainerInjectionInterface {

    public static function create(ContainerInterface $container);

  }

}

namespace Drupal\Core\Session {

  interface AccountInterface {

    public function id();

    public function hasPermission($permission);

  }

  interface AccountSwitcherInterface {

    public function switchTo(AccountInterface $account);

    public function switchBack();

  }

}

namespace Drupal\Core\State {

  interface StateInterface {

    public function get($key, $default = NULL);

    public function set($key, $value);

    public function delete($key);

  }

}

namespace Drupal\Core\Config {

  interface ConfigFactoryInterface {

    public function get($name);

  }

}

namespace Drupal\Core\Entity {

  interface EntityTypeManagerInterface {

    public function getStorage($entity_type);

  }

  interface EntityFieldManagerInterface {

    public function getFieldStorageDefinitions($entity_type_id);

  }

}

namespace Drupal\Core\Field {

  /**
   * The field item list a text format is given to (BodyFormat).
   */
  interface FieldItemListInterface {

    public function first();

    public function getName();

    public function getFieldDefinition();

  }

}

namespace Drupal\Core\Authentication {

  interface AuthenticationProviderInterface {

    public function applies(\Symfony\Component\HttpFoundation\Request $request);

    public function authenticate(\Symfony\Component\HttpFoundation\Request $request);

  }

}

namespace Drupal\Core\File {

  interface FileUrlGeneratorInterface {

    public function generateAbsoluteString(string $uri): string;

  }

}

namespace Drupal\content_moderation {

  interface ModerationInformationInterface {

    public function isModeratedEntity($entity);

    public function getWorkflowForEntity($entity);

  }

}

namespace Drupal\node {

  /**
   * The node storage (its methods are ContentEntityStorageInterface's).
   */
  interface NodeStorageInterface {
  }

  /**
   * NodeInterface's methods the module calls (from its parent interfaces).
   */
  interface NodeInterface {

    public function id();

    public function bundle();

    public function getTitle();

    public function setTitle($title);

    public function isPublished();

    public function setPublished();

    public function setUnpublished();

    public function getRevisionId();

    public function isDefaultRevision($new_value = NULL);

    public function isLatestRevision();

    public function setNewRevision($value = TRUE);

    public function isNewRevision();

    public function setRevisionLogMessage($revision_log_message);

    public function setRevisionUserId($user_id);

    public function setRevisionCreationTime($timestamp);

    public function hasField($field_name);

    public function get($field_name);

    public function set($field_name, $value, $notify = TRUE);

    public function getFieldDefinitions();

    public function getFieldDefinition($name);

    public function language();

    public function access($operation, $account = NULL, $return_as_object = FALSE);

    public function validate();

    public function save();

  }

}

namespace {

  /**
   * Drupal's static class, for its VERSION constant.
   */
  class Drupal {

    const VERSION = '11.1.0';

  }

}
